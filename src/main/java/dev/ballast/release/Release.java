package dev.ballast.release;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.ballast.weight.Weight;

/**
 * A traffic shift as stored.
 *
 * @param id its number within its service (release 1 is a service's first)
 * @param service the service
 * @param from selector of the group giving up traffic
 * @param to selector of the group taking it
 * @param fromIds the instances of {@code from} when it started
 * @param toIds the instances of {@code to} when it started
 * @param original every group member's configured weight before the release, or the
 * weight set by hand on it since (what abort restores, and its share's basis)
 * @param totalWeight the weight that serves, which the two groups share
 * ({@link dev.ballast.weight.ShiftWeights})
 * @param steps percentages of the total for {@code to}
 * @param stepIntervalSeconds seconds between automatic steps, 0 for manual
 * @param step index of the current step
 * @param state where it is
 * @param stateReason why it is paused, or null
 * @param nextStepAt when it advances by itself, or null
 * @param createdAt when it started
 */
record Release(long id, String service, Map<String, String> from, Map<String, String> to, List<String> fromIds,
		List<String> toIds, Map<String, Weight> original, long totalWeight, List<Integer> steps,
		int stepIntervalSeconds, int step, State state, String stateReason, Instant nextStepAt, Instant createdAt) {

	enum State {

		/** Shifting, step by step. */
		ACTIVE,

		/** Stopped because the {@code to} group lost its capacity; advance resumes it. */
		PAUSED,

		/** The {@code to} group has 100%. */
		COMPLETED,

		/** Every weight was restored. */
		ABORTED

	}

	int percent() {
		return steps.get(step);
	}

	boolean underWay() {
		return state == State.ACTIVE || state == State.PAUSED;
	}

	Release at(int newStep, State newState, String reason, Instant next) {
		return new Release(id, service, from, to, fromIds, toIds, original, totalWeight, steps, stepIntervalSeconds,
				newStep, newState, reason, next, createdAt);
	}

	Release sharing(Map<String, Weight> newOriginal, long newTotal) {
		return new Release(id, service, from, to, fromIds, toIds, Map.copyOf(newOriginal), newTotal, steps,
				stepIntervalSeconds, step, state, stateReason, nextStepAt, createdAt);
	}

}
