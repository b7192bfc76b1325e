package dev.ballast.watch;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;

/**
 * One open event stream. Events are queued by the delivering thread and written by the
 * stream's writer thread ({@link StreamWriters}) with the servlet container's
 * non-blocking output: a write never waits for the client, so no thread is held by an
 * idle or slow stream, and one that stops reading only fills its own bounded queue.
 *
 * <p>
 * Whoever holds the write lock (the writer, the container when the socket becomes
 * writable again, or the upkeep's keepalive) writes until the queue is empty or the
 * socket is full; the others only try the lock and leave a request the holder serves, so
 * none ever waits for another.
 */
final class Watcher implements WriteListener, AsyncListener {

	private final Positions positions;

	private final String subscriber;

	private final long deadlineNanos;

	private final FrameQueue queue;

	private final ReentrantLock writing = new ReentrantLock();

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile ServletOutputStream out;

	private volatile boolean writable;

	private volatile AsyncContext async;

	private final Consumer<Watcher> onClosed;

	private final String token;

	private volatile boolean closing;

	private volatile long lastWriteNanos;

	/** Written but not flushed yet; only under the write lock. */
	private boolean unflushed;

	/** Handed to its writer and not yet drained by it. */
	private final AtomicBoolean drainScheduled = new AtomicBoolean();

	/** Someone asked for a drain since the lock holder last looked. */
	private final AtomicBoolean drainRequested = new AtomicBoolean();

	Watcher(List<String> services, boolean multiplexed, String subscriber, Map<String, Long> resumeFrom, int capacity,
			long deadlineNanos, String token, Consumer<Watcher> onClosed) {
		this.onClosed = onClosed;
		this.token = token;
		this.positions = new Positions(services, multiplexed, resumeFrom);
		this.subscriber = subscriber;
		this.queue = new FrameQueue(capacity);
		this.deadlineNanos = deadlineNanos;
		this.lastWriteNanos = System.nanoTime();
	}

	List<String> services() {
		return positions.services();
	}

	/** The id of the token that opened the stream. */
	String token() {
		return token;
	}

	boolean multiplexed() {
		return positions.multiplexed();
	}

	/** The subscriber name the client gave, or {@code null}. */
	String subscriber() {
		return subscriber;
	}

	/** Where the client said it was (Last-Event-ID), per service. */
	Long resumeFrom(String service) {
		return positions.resumeFrom(service);
	}

	/** Records that an event at {@code revision} of {@code service} is being sent. */
	void advance(String service, long revision) {
		positions.advance(service, revision);
	}

	/** The id of the event just advanced to (see {@link Positions#eventId}). */
	String eventId(String service) {
		return positions.eventId(service);
	}

	/** Starts writing to the response, once the request has gone asynchronous. */
	void start(AsyncContext context, ServletOutputStream output) {
		this.async = context;
		this.out = output;
		context.addListener(this);
		// The container calls onWritePossible once the listener is set; only from then on
		// may anything be written.
		output.setWriteListener(this);
	}

	/** Queues a frame; false when the queue is full (nothing queued). */
	boolean offer(byte[] frame) {
		if (closing || closed.get()) {
			return true;
		}
		return queue.offer(frame);
	}

	/** Drops everything queued, before the feed queues a fresh snapshot instead. */
	void discardQueued() {
		queue.clear();
	}

	/** Sends a last frame, then ends the stream. */
	void finish(byte[] lastFrame) {
		if (closing || closed.get()) {
			return;
		}
		queue.replaceWith(lastFrame);
		closing = true;
		drain();
	}

	/**
	 * Marks the stream as handed to its writer; false if it already waits there.
	 * @see StreamWriters#drain
	 */
	boolean scheduleDrain() {
		return drainScheduled.compareAndSet(false, true);
	}

	/** Its writer's turn: everything queued until now is written by this drain. */
	void scheduledDrain() {
		drainScheduled.set(false);
		drain();
	}

	/**
	 * Writes what is queued, as far as the socket takes it without waiting. A caller that
	 * finds the write lock taken leaves a request behind, which the holder honours before
	 * it lets go: the container's "writable again" and a newly queued frame are never
	 * lost to a writer that was just finishing.
	 */
	void drain() {
		drainRequested.set(true);
		while (writable && !closed.get() && drainRequested.get() && writing.tryLock()) {
			boolean blocked;
			try {
				drainRequested.set(false);
				// Checked under the lock: once the stream is closed, nothing touches the
				// container's request again, which it may already be reusing.
				if (closed.get()) {
					return;
				}
				blocked = writeWhileReady();
			}
			catch (IOException | IllegalStateException ex) {
				close();
				return;
			}
			finally {
				writing.unlock();
			}
			if (!blocked && closing && queue.isEmpty()) {
				close();
				return;
			}
			// Blocked: the container calls onWritePossible when the socket takes more.
			// Either way, a request left meanwhile is served by the next turn.
		}
	}

	/**
	 * Writes and flushes queued frames while the container takes them; true when it is
	 * blocked on the socket (then it calls onWritePossible once the socket drains).
	 */
	private boolean writeWhileReady() throws IOException {
		ServletOutputStream output = out;
		while (output.isReady()) {
			byte[] next = queue.poll();
			if (next == null) {
				if (!unflushed) {
					return false;
				}
				output.flush();
				lastWriteNanos = System.nanoTime();
				unflushed = false;
				// A flush the socket could not take whole leaves the rest in the
				// container; asking again whether it is ready has it send the rest
				// when it can, instead of when the next frame comes.
				continue;
			}
			output.write(next);
			unflushed = true;
		}
		return true;
	}

	boolean hasQueued() {
		return queue.hasQueued();
	}

	long idleNanos(long now) {
		return now - lastWriteNanos;
	}

	boolean expired(long now) {
		return now - deadlineNanos >= 0;
	}

	boolean open() {
		return !closed.get() && !closing;
	}

	/** Ends the stream now, without a last frame. */
	void close() {
		end(async, false);
	}

	/**
	 * Marks the stream closed and completes it, holding the write lock so that no write
	 * is under way; the wait for the lock is bounded, as writes never block.
	 */
	private void end(AsyncContext context, boolean containerNotice) {
		boolean locked = lockBriefly();
		try {
			boolean first = closed.compareAndSet(false, true);
			if (first) {
				discardQueued();
				onClosed.accept(this);
			}
			// The stored context is ours only until the container's notice; the notice's
			// own context is valid while it runs.
			if (first || containerNotice) {
				completeQuietly(context);
			}
			// The container reuses its request for another connection: a closed stream
			// holds none of it, whoever still holds the stream.
			out = null;
			async = null;
		}
		finally {
			if (locked) {
				writing.unlock();
			}
		}
	}

	private boolean lockBriefly() {
		try {
			return writing.tryLock(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static void completeQuietly(AsyncContext context) {
		if (context != null) {
			try {
				context.complete();
			}
			catch (IllegalStateException ex) {
				// Already completed (client gone, timeout).
			}
		}
	}

	@Override
	public void onWritePossible() {
		writable = true;
		drain();
	}

	@Override
	public void onError(Throwable failure) {
		close();
	}

	// The container's own notices: the stream is over, and its request may be reused as
	// soon as these return, so the stream is closed through the event's context.
	@Override
	public void onComplete(AsyncEvent event) {
		end(event.getAsyncContext(), true);
	}

	@Override
	public void onTimeout(AsyncEvent event) {
		end(event.getAsyncContext(), true);
	}

	@Override
	public void onError(AsyncEvent event) {
		end(event.getAsyncContext(), true);
	}

	@Override
	public void onStartAsync(AsyncEvent event) {
	}

}
