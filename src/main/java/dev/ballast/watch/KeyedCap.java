package dev.ballast.watch;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of something each key holds (a token's streams, an xDS node id's), up to a
 * maximum per key; a key holding none has no entry, so that keys seen once leave nothing
 * behind.
 */
public final class KeyedCap {

	private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();

	private final int max;

	public KeyedCap(int max) {
		this.max = max;
	}

	/** Takes one for {@code key}; false, and nothing taken, when it holds the maximum. */
	public boolean tryTake(String key) {
		boolean[] taken = { false };
		held.compute(key, (k, count) -> {
			int now = count == null ? 0 : count;
			if (now >= max) {
				return count;
			}
			taken[0] = true;
			return now + 1;
		});
		return taken[0];
	}

	/** Gives back one that {@link #tryTake} took for {@code key}. */
	public void release(String key) {
		held.computeIfPresent(key, (k, count) -> count == 1 ? null : count - 1);
	}

	public int max() {
		return max;
	}

}
