package dev.ballast.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Picks instances by nginx's smooth weighted round robin over their effective weights: on
 * each pick every candidate's current weight grows by its effective weight, the candidate
 * with the highest current weight is chosen, and the total of all effective weights is
 * taken off the chosen one. Over any {@code total} consecutive picks from a fresh start
 * each instance is chosen exactly its weight times, interleaved rather than in bursts.
 *
 * <p>
 * Instances that are not routable or have an effective weight of 0 are never chosen. Each
 * pick is one pass over the candidates. Safe for use by several threads.
 */
public final class SmoothWeightedBalancer {

	private List<Candidate> candidates = List.of();

	private long total;

	/** A balancer without instances: it picks nothing until updated. */
	public SmoothWeightedBalancer() {
	}

	/**
	 * Replaces the instances to pick from. Instances whose id was already known keep
	 * their current weight, so that the rotation stays smooth across updates; the others
	 * start from zero, and the current weights of instances no longer present are
	 * forgotten.
	 * @param instances the instances of the service, in a stable order (ties go to the
	 * earlier one)
	 */
	public synchronized void update(Collection<WatchedInstance> instances) {
		Map<String, Long> previous = new HashMap<>();
		candidates.forEach((candidate) -> previous.put(candidate.instance.id(), candidate.current));
		List<Candidate> next = new ArrayList<>();
		long nextTotal = 0;
		for (WatchedInstance instance : instances) {
			if (instance.receivesTraffic()) {
				next.add(new Candidate(instance, previous.getOrDefault(instance.id(), 0L)));
				nextTotal += instance.effectiveWeight();
			}
		}
		candidates = next;
		total = nextTotal;
	}

	/**
	 * Picks the next instance to send a request to.
	 * @return the instance, or empty when no instance is routable with an effective
	 * weight above zero
	 */
	public synchronized Optional<WatchedInstance> pick() {
		Candidate best = null;
		for (Candidate candidate : candidates) {
			candidate.current += candidate.instance.effectiveWeight();
			if (best == null || candidate.current > best.current) {
				best = candidate;
			}
		}
		if (best == null) {
			return Optional.empty();
		}
		best.current -= total;
		return Optional.of(best.instance);
	}

	/** An instance with its current weight, which only this balancer's lock guards. */
	private static final class Candidate {

		private final WatchedInstance instance;

		private long current;

		Candidate(WatchedInstance instance, long current) {
			this.instance = instance;
			this.current = current;
		}

	}

}
