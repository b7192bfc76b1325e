package dev.ballast.watch;

/**
 * How far this node follows one service: the revision read and handed over, and the
 * changes the delivering thread still holds in memory, {@code (heldAfter, revision]}. It
 * keeps them exactly as {@link ServiceFeed} does, from what was handed to it, so that a
 * resuming stream is read from the log only when memory cannot serve it.
 */
final class Followed {

	private final int capacity;

	private long revision;

	private long heldAfter;

	Followed(long revision, int capacity) {
		this.capacity = capacity;
		reset(revision);
	}

	/** The revision read and handed over. */
	long revision() {
		return revision;
	}

	/**
	 * The delivering thread holds the changes after this one, up to {@link #revision()}.
	 */
	long heldAfter() {
		return heldAfter;
	}

	/** A state was loaded and handed over, in place of any changes held. */
	void reset(long loaded) {
		revision = loaded;
		heldAfter = loaded;
	}

	/** The next change was handed over; the oldest held falls out past the capacity. */
	void applied(long next) {
		revision = next;
		heldAfter = Math.max(heldAfter, revision - capacity);
	}

}
