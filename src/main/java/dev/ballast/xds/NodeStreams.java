package dev.ballast.xds;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many ADS streams each client node id holds open on this node, within
 * {@code ballast.xds.max-streams-per-node-id}: one client whose streams pile up (a leak,
 * a reconnect loop) cannot hold all of its token's.
 */
final class NodeStreams {

	private final ConcurrentHashMap<String, Integer> open = new ConcurrentHashMap<>();

	private final int max;

	NodeStreams(int max) {
		this.max = max;
	}

	/** Takes one of {@code nodeId}'s streams; false when it holds its maximum. */
	boolean tryTake(String nodeId) {
		boolean[] taken = { false };
		open.compute(nodeId, (key, held) -> {
			int count = held == null ? 0 : held;
			if (count >= max) {
				return held;
			}
			taken[0] = true;
			return count + 1;
		});
		return taken[0];
	}

	void release(String nodeId) {
		open.computeIfPresent(nodeId, (key, held) -> held == 1 ? null : held - 1);
	}

	int max() {
		return max;
	}

}
