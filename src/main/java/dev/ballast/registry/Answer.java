package dev.ballast.registry;

/**
 * What a read answers, and whether it comes from the database or from this node's memory
 * while the database is unreachable: the one such wrapper, for every read that answers
 * from memory during an outage ({@link Snapshots#answer}).
 *
 * @param value the state read
 * @param stale true when it is the node's last known state rather than a fresh read
 * @param <T> what was read
 */
public record Answer<T>(T value, boolean stale) {

	static <T> Answer<T> fresh(T value) {
		return new Answer<>(value, false);
	}

	static <T> Answer<T> lastKnown(T value) {
		return new Answer<>(value, true);
	}

}
