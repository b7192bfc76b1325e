package dev.ballast.probe;

import java.nio.charset.StandardCharsets;
import java.util.Collection;

/**
 * Which live node probes a check: rendezvous hashing, so that every node computes the
 * same owner from the same list of nodes without asking the others, each check has
 * exactly one owner, and a node joining or leaving moves only the checks it gains or had.
 */
final class ProbeOwners {

	private ProbeOwners() {
	}

	/**
	 * @param key the check ({@code StoredCheck.key()})
	 * @param nodes the live nodes, none empty
	 * @return the node that probes it, or null when there is none
	 */
	static String owner(String key, Collection<String> nodes) {
		String best = null;
		long bestScore = 0;
		for (String node : nodes) {
			long score = score(node, key);
			// Ties (astronomically rare) go to the smaller name, so every node agrees.
			if (best == null || Long.compareUnsigned(score, bestScore) > 0
					|| (score == bestScore && node.compareTo(best) < 0)) {
				best = node;
				bestScore = score;
			}
		}
		return best;
	}

	/**
	 * The place of a check within its interval, from 0 (inclusive) to 1: probe times are
	 * spread over the interval by key, so a restart or a handover does not fire every
	 * check at once.
	 */
	static double phase(String key) {
		return (score("phase", key) >>> 11) * 0x1.0p-53;
	}

	/**
	 * FNV-1a over node and key, then a 64-bit finalizer (splitmix) to spread the bits.
	 */
	private static long score(String node, String key) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : (node + '\u0000' + key).getBytes(StandardCharsets.UTF_8)) {
			hash ^= b & 0xff;
			hash *= 0x100000001b3L;
		}
		hash ^= hash >>> 30;
		hash *= 0xbf58476d1ce4e5b9L;
		hash ^= hash >>> 27;
		hash *= 0x94d049bb133111ebL;
		return hash ^ (hash >>> 31);
	}

}
