package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicReference;

/**
 * How far this node follows one service: the position read and handed over, and the
 * changes the delivering thread still holds in memory, {@code (heldAfter, revision]}. It
 * keeps them exactly as {@link ServiceFeed} does, from what was handed to it, so that a
 * resuming stream is read from the log only when memory cannot serve it.
 *
 * <p>
 * The delivering thread also applies this node's own commits straight after they commit,
 * without the log ({@link Streams#committed}); it reports how far it got in
 * {@link #delivered()}, and the reader moves up to there ({@link #catchUpToDelivered})
 * rather than read those changes again. The reference belongs to this following of the
 * service: one followed afresh later gets a new one, so a feed of an earlier following
 * can never move it.
 */
final class Followed {

	private final int capacity;

	private final AtomicReference<Position> delivered = new AtomicReference<>();

	private Position position;

	private long heldAfter;

	/** The revision at which it was loaded as not registered, or -1. */
	private long unregisteredAt = -1;

	Followed(Position loaded, int capacity) {
		this.capacity = capacity;
		reset(loaded);
	}

	/** The revision read and handed over. */
	long revision() {
		return position.revision();
	}

	/** The position read and handed over: its revision and that revision's history. */
	Position position() {
		return position;
	}

	/**
	 * The delivering thread holds the changes after this one, up to {@link #revision()}.
	 */
	long heldAfter() {
		return heldAfter;
	}

	/** It was loaded just now as a service that is not registered. */
	void markUnregistered() {
		unregisteredAt = position.revision();
	}

	/**
	 * Whether it was loaded as not registered and nothing happened to it since (no
	 * registration, which would have raised the revision).
	 */
	boolean stillUnregistered() {
		return unregisteredAt >= 0 && position.revision() == unregisteredAt;
	}

	/** The position the delivering thread applied, written by it alone. */
	AtomicReference<Position> delivered() {
		return delivered;
	}

	/** A state was loaded and handed over, in place of any changes held. */
	void reset(Position loaded) {
		position = loaded;
		heldAfter = loaded.revision();
	}

	/** The next change was handed over; the oldest held falls out past the capacity. */
	void applied(Position next) {
		position = next;
		heldAfter = Math.max(heldAfter, next.revision() - capacity);
	}

	/**
	 * Takes the changes the delivering thread applied beyond {@link #revision()} as
	 * handed over: it applied them in order and without a gap, so it holds them as if
	 * they had been.
	 */
	void catchUpToDelivered() {
		Position done = delivered.get();
		if (done != null && done.revision() > position.revision()) {
			applied(done);
		}
	}

}
