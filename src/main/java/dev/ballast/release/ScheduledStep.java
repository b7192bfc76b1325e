package dev.ballast.release;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.ballast.weight.Ramp;
import dev.ballast.weight.Weight;

/**
 * A row of the mode schedule: what the scheduler does next to one instance, and when.
 *
 * @param service the service
 * @param instanceId the instance
 * @param kind what is due
 * @param rampFrom the weight the ramp started from
 * @param startedAt when the ramp started
 * @param duration how long the ramp takes
 * @param step how long each ramp step lasts
 * @param zeroRevision for {@link Kind#CONFIRM}, the revision at which the weight became 0
 * @param confirmDeadline for a drain, when it completes even if unconfirmed
 * @param awaiting for {@link Kind#CONFIRM}, the subscribers live when the weight reached
 * 0
 * @param dueAt when the scheduler handles it next
 */
record ScheduledStep(String service, String instanceId, Kind kind, int rampFrom, Instant startedAt, Duration duration,
		Duration step, Long zeroRevision, Instant confirmDeadline, List<String> awaiting, Instant dueAt) {

	ScheduledStep {
		awaiting = awaiting == null ? List.of() : List.copyOf(awaiting);
	}

	enum Kind {

		/** Ramping the effective weight down to 0. */
		DRAIN,

		/** Ramping the effective weight up to the configured weight. */
		WARM,

		/** At weight 0, waiting for the subscribers to acknowledge it. */
		CONFIRM,

		/** Maintenance with an end time. */
		END_MAINTENANCE

	}

	/** The ramp this step follows towards {@code target}. */
	Ramp ramp(Weight target) {
		return new Ramp(Weight.of(rampFrom), target, duration, step);
	}

	Duration elapsed(Instant now) {
		return Duration.between(startedAt, now);
	}

	ScheduledStep dueAt(Instant next) {
		return new ScheduledStep(service, instanceId, kind, rampFrom, startedAt, duration, step, zeroRevision,
				confirmDeadline, awaiting, next);
	}

	ScheduledStep confirming(long revision, List<String> live, Instant now) {
		return new ScheduledStep(service, instanceId, Kind.CONFIRM, rampFrom, startedAt, duration, step, revision,
				confirmDeadline, live, now);
	}

}
