package dev.ballast.watch;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The frames of one stream waiting for its socket, bounded: a client that stops reading
 * fills only its own queue, and the feed learns it at once (an offer is refused) instead
 * of holding frames for it without end. The feed thread adds; whichever thread holds the
 * stream's write lock takes.
 */
final class FrameQueue {

	private final ConcurrentLinkedQueue<EventFrame> frames = new ConcurrentLinkedQueue<>();

	/** Counted apart: a concurrent queue's size() walks the whole queue. */
	private final AtomicInteger size = new AtomicInteger();

	private final int capacity;

	FrameQueue(int capacity) {
		this.capacity = capacity;
	}

	/** Queues a frame; false when the queue is full (nothing queued). */
	boolean offer(EventFrame frame) {
		if (size.incrementAndGet() > capacity) {
			size.decrementAndGet();
			return false;
		}
		frames.add(frame);
		return true;
	}

	/**
	 * Queues the stream's last frames after dropping the rest; they may exceed the bound.
	 */
	void replaceWith(EventFrame... lastFrames) {
		clear();
		for (EventFrame frame : lastFrames) {
			frames.add(frame);
			size.incrementAndGet();
		}
	}

	/** The next frame to write, or {@code null}. */
	EventFrame poll() {
		EventFrame next = frames.poll();
		if (next != null) {
			size.decrementAndGet();
		}
		return next;
	}

	void clear() {
		while (poll() != null) {
			// Dropped.
		}
	}

	boolean isEmpty() {
		return frames.isEmpty();
	}

	/** Whether frames wait, by the count (which may run ahead of the queue briefly). */
	boolean hasQueued() {
		return size.get() > 0;
	}

}
