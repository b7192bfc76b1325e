package dev.ballast.weight;

import java.time.Duration;
import java.util.Objects;

/**
 * A weight moving from one value to another in equal integer steps over a duration: a
 * drain ramps down to 0, a warm-up ramps up from 1 to the configured weight. Each step is
 * rounded down, so a ramp down never leaves a step early and a ramp up never gets ahead
 * of itself; both end exactly at their target.
 *
 * @param from the weight when the ramp starts
 * @param to the weight it ends at
 * @param duration how long it takes
 * @param step how long each step lasts
 */
public record Ramp(Weight from, Weight to, Duration duration, Duration step) {

	public Ramp {
		Objects.requireNonNull(from, "from");
		Objects.requireNonNull(to, "to");
		Objects.requireNonNull(duration, "duration");
		Objects.requireNonNull(step, "step");
		if (duration.isNegative()) {
			throw new IllegalArgumentException("duration must not be negative; got " + duration);
		}
		if (step.isNegative() || step.isZero()) {
			throw new IllegalArgumentException("step must be positive; got " + step);
		}
	}

	/** A drain from {@code current} to 0. */
	public static Ramp down(Weight current, Duration duration, Duration step) {
		return new Ramp(current, Weight.ZERO, duration, step);
	}

	/** A warm-up from the smallest routable weight, 1, to {@code configured}. */
	public static Ramp up(Weight configured, Duration duration, Duration step) {
		return new Ramp(configured.value() == 0 ? Weight.ZERO : Weight.of(1), configured, duration, step);
	}

	/** How many steps the ramp takes; at least one. */
	public long steps() {
		long steps = ceilDiv(duration.toMillis(), step.toMillis());
		return Math.max(1, steps);
	}

	/** The weight {@code elapsed} after the start. */
	public Weight at(Duration elapsed) {
		if (duration.isZero()) {
			return to;
		}
		long done = stepsDone(elapsed);
		long span = (long) to.value() - from.value();
		return Weight.of((int) (from.value() + Math.floorDiv(span * done, steps())));
	}

	/**
	 * This ramp planned again {@code elapsed} after its start, because the weight it
	 * ramps toward changed to {@code target} (an edit during a warm-up) or its weight was
	 * taken lower than the ramp had reached (an edit during a drain): from
	 * {@code current}, the effective weight of the moment, to {@code target} over the
	 * time it had left, in steps of the same length. It keeps the ramp's direction: a
	 * ramp up starting above its new target starts at the target (the effective weight
	 * was already taken down to it, {@link EffectiveWeight}), and a ramp down never goes
	 * up. So the weight moves monotonically toward the new target, never passes it, and
	 * arrives when the ramp was due to end.
	 * @param elapsed time since this ramp started
	 * @param current the effective weight now
	 * @param target the weight to arrive at
	 * @return the ramp that starts now
	 */
	public Ramp rebased(Duration elapsed, Weight current, Weight target) {
		Duration left = elapsed.compareTo(duration) >= 0 ? Duration.ZERO
				: elapsed.isNegative() ? duration : duration.minus(elapsed);
		boolean up = to.value() >= from.value();
		boolean beyond = up ? current.value() > target.value() : current.value() < target.value();
		return new Ramp(beyond ? target : current, target, left, step);
	}

	/**
	 * The weight {@code elapsed} after the start for an instance now at {@code current}:
	 * {@link #at}, but never a step away from the target. A ramp down never goes up and a
	 * ramp up never comes down, whatever was done to the instance between two steps (an
	 * edit to 0 and back, say, leaves a drain where the edit took it). Its end is exact:
	 * the target, when the duration has passed.
	 */
	public Weight next(Duration elapsed, Weight current) {
		Weight planned = at(elapsed);
		if (finished(elapsed)) {
			return planned;
		}
		boolean up = to.value() >= from.value();
		boolean back = up ? planned.value() < current.value() : planned.value() > current.value();
		return back ? current : planned;
	}

	/** Whether the ramp has reached its target {@code elapsed} after the start. */
	public boolean finished(Duration elapsed) {
		return at(elapsed).equals(to);
	}

	/**
	 * When, after the start, the step that follows {@code elapsed} begins; the last step
	 * is taken exactly at the end of the duration.
	 */
	public Duration nextStepAfter(Duration elapsed) {
		Duration next = step.multipliedBy(stepsDone(elapsed) + 1);
		return next.compareTo(duration) > 0 ? duration : next;
	}

	/**
	 * Steps taken by {@code elapsed}: one per step interval, and all of them at the end.
	 */
	private long stepsDone(Duration elapsed) {
		if (elapsed.isNegative()) {
			return 0;
		}
		if (elapsed.compareTo(duration) >= 0) {
			return steps();
		}
		return Math.min(steps(), elapsed.toMillis() / step.toMillis());
	}

	private static long ceilDiv(long a, long b) {
		return -Math.floorDiv(-a, b);
	}

}
