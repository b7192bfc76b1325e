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
 * @param plannedWeight the configured weight the ramp was planned with (toward, for a
 * warm-up; from, for a drain), or null for a row written before it was kept
 */
record ScheduledStep(String service, String instanceId, Kind kind, int rampFrom, Instant startedAt, Duration duration,
		Duration step, Long zeroRevision, Instant confirmDeadline, List<String> awaiting, Instant dueAt,
		Integer plannedWeight) {

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

	/** When the ramp ends. */
	Instant endsAt() {
		return startedAt.plus(duration);
	}

	ScheduledStep dueAt(Instant next) {
		return new ScheduledStep(service, instanceId, kind, rampFrom, startedAt, duration, step, zeroRevision,
				confirmDeadline, awaiting, next, plannedWeight);
	}

	ScheduledStep confirming(long revision, List<String> live, Instant now) {
		return new ScheduledStep(service, instanceId, Kind.CONFIRM, rampFrom, startedAt, duration, step, revision,
				confirmDeadline, live, now, plannedWeight);
	}

	/**
	 * This ramp planned again at {@code now} when the configured weight is no longer the
	 * one it was planned with (an edit, or a traffic shift's step, during the ramp): from
	 * {@code effective}, toward {@code target}, over the time it had left
	 * ({@link Ramp#rebased}); as it is otherwise.
	 * @param configured the configured weight now
	 * @param effective the effective weight now
	 * @param target where the ramp goes: the configured weight (a warm-up) or 0 (a drain)
	 */
	ScheduledStep replanned(Weight configured, Weight effective, Weight target, Instant now) {
		if (plannedWeight == null || plannedWeight == configured.value()) {
			return this;
		}
		Weight plannedTarget = kind == Kind.WARM ? Weight.of(plannedWeight) : Weight.ZERO;
		Ramp ramp = ramp(plannedTarget).rebased(elapsed(now), effective, target);
		return new ScheduledStep(service, instanceId, kind, ramp.from().value(), now, ramp.duration(), step,
				zeroRevision, confirmDeadline, awaiting, dueAt, configured.value());
	}

}
