package dev.ballast.watch;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One open event stream. Events are queued by the delivering thread and written by the
 * stream's writer thread ({@link StreamWriters}) straight to the stream's socket
 * ({@link StreamConnection}) without waiting: a write never waits for the client, so no
 * thread is held by an idle or slow stream, and one that stops reading only fills its own
 * bounded queue.
 *
 * <p>
 * Whoever holds the write lock (the writer, the container when the socket becomes
 * writable again, or the upkeep's keepalive) writes until the queue is empty or the
 * socket is full; the others only try the lock and leave a request the holder serves, so
 * none ever waits for another.
 */
final class Watcher {

	private final Positions positions;

	private final String subscriber;

	private final long deadlineNanos;

	private final FrameQueue queue;

	private final ReentrantLock writing = new ReentrantLock();

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile StreamConnection connection;

	/** The socket takes writes: false before the start and while it is full. */
	private volatile boolean writable;

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

	/**
	 * The caller's zone, whose view the stream sends ({@code null}: the flat stream of
	 * changes).
	 */
	private final String zone;

	/**
	 * Per service, where the zone's view the stream was last brought to stands; only the
	 * delivering thread touches it.
	 */
	private final Map<String, Position> zoneViewAt = new HashMap<>();

	Watcher(List<String> services, boolean multiplexed, String subscriber, Map<String, Position> resumeFrom,
			int capacity, long deadlineNanos, String token, String zone, Consumer<Watcher> onClosed) {
		this.zone = zone;
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

	/** The caller's zone, or {@code null} for the flat stream of changes. */
	String zone() {
		return zone;
	}

	/** Where the zone's view of {@code service} the stream was brought to stands. */
	Position zoneViewAt(String service) {
		return zoneViewAt.get(service);
	}

	/**
	 * Records that the stream is brought to the zone's view of {@code service} at
	 * {@code position}.
	 */
	void zoneViewAt(String service, Position position) {
		zoneViewAt.put(service, position);
	}

	/** The subscriber name the client gave, or {@code null}. */
	String subscriber() {
		return subscriber;
	}

	/** Where the client said it was (Last-Event-ID), per service. */
	Position resumeFrom(String service) {
		return positions.resumeFrom(service);
	}

	/** Records that an event at {@code position} of {@code service} is being sent. */
	void advance(String service, Position position) {
		positions.advance(service, position);
	}

	/** The id of the event just advanced to (see {@link Positions#eventId}). */
	String eventId(String service) {
		return positions.eventId(service);
	}

	/**
	 * Starts writing to the connection, once the response's headers are sent; a stream
	 * that ended meanwhile closes it.
	 */
	void start(StreamConnection connection) {
		this.connection = connection;
		// A close that ran meanwhile either saw the connection or is seen here.
		if (closed.get()) {
			closeQuietly(connection);
			return;
		}
		writable();
	}

	/** Queues a frame; false when the queue is full (nothing queued). */
	boolean offer(EventFrame frame) {
		if (closing || closed.get()) {
			return true;
		}
		return queue.offer(frame);
	}

	/** Drops everything queued, before the feed queues a fresh snapshot instead. */
	void discardQueued() {
		queue.clear();
	}

	/** Sends a last frame and ends the body, then ends the stream. */
	void finish(EventFrame lastFrame) {
		if (closing || closed.get()) {
			return;
		}
		queue.replaceWith(lastFrame, EventFrame.END);
		closing = true;
		drain();
	}

	/**
	 * Marks the stream as handed to its writer; false if it already waits there.
	 * @see StreamWriters.Batch#add
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
				// Checked under the lock: once the stream is closed, its connection may
				// already serve another client.
				if (closed.get()) {
					return;
				}
				blocked = writeWhileReady(connection);
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
			// Blocked: the container calls writable() when the socket takes more.
			// Either way, a request left meanwhile is served by the next turn.
		}
	}

	/**
	 * Writes queued frames to the socket's buffer and flushes them while the socket takes
	 * them; true when it is full (then the container calls {@link #writable} once it
	 * drains). Frames queued together go out in as few sends as the socket's buffer
	 * allows.
	 */
	private boolean writeWhileReady(StreamConnection output) throws IOException {
		while (true) {
			// What a full socket left buffered goes first.
			if (!output.canWrite() && output.flush()) {
				return blocked(output);
			}
			EventFrame next = queue.poll();
			if (next == null) {
				if (!unflushed) {
					return false;
				}
				unflushed = false;
				lastWriteNanos = System.nanoTime();
				return output.flush() && blocked(output);
			}
			output.write(next);
			unflushed = true;
		}
	}

	/** Waits, without a thread, for the socket to take more. */
	private boolean blocked(StreamConnection output) {
		// Before asking: the container's answer may come at once, and must find the
		// stream not writable yet, or its drain would be lost.
		writable = false;
		output.awaitWritable();
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

	/** Closed: nothing is written to its connection any more. */
	boolean ended() {
		return closed.get();
	}

	/** Ends the stream now, without a last frame. */
	void close() {
		if (closed.get()) {
			return;
		}
		end();
	}

	/**
	 * Marks the stream closed and closes its connection, holding the write lock so that
	 * no write is under way; the wait for the lock is bounded, as writes never block.
	 */
	private void end() {
		boolean locked = lockBriefly();
		try {
			if (closed.compareAndSet(false, true)) {
				discardQueued();
				onClosed.accept(this);
			}
			StreamConnection open = connection;
			connection = null;
			closeQuietly(open);
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

	private static void closeQuietly(StreamConnection connection) {
		if (connection != null) {
			connection.close();
		}
	}

	/** The socket takes writes (again): write what waits. */
	void writable() {
		writable = true;
		drain();
	}

}
