package dev.ballast.weight;

import java.time.Instant;
import java.util.Objects;

/**
 * A scope's capacity before something took part of it away (a weight lowered, an instance
 * moved to another zone or deregistered), remembered until {@code until}: for that long
 * the guard counts the scope against this capacity, so that what left cannot be taken
 * away a second time by the next action.
 *
 * @param scope {@code service} or {@code zone <name>}
 * @param capacity the scope's capacity before the change
 * @param until the end of the window in which it counts
 * @param cause what took it away, in words for refusals
 */
public record CapacityPeak(String scope, long capacity, Instant until, String cause) {

	public CapacityPeak {
		Objects.requireNonNull(scope, "scope");
		Objects.requireNonNull(until, "until");
		Objects.requireNonNull(cause, "cause");
		if (capacity < 0) {
			throw new IllegalArgumentException("capacity must not be negative; got " + capacity);
		}
	}

	/** Whether it still counts at {@code now}. */
	public boolean liveAt(Instant now) {
		return until.isAfter(now);
	}

}
