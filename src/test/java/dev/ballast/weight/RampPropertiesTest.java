package dev.ballast.weight;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class RampPropertiesTest {

	private static final Gen<Integer> WEIGHTS = withEdges(integers().between(0, 10_000), 0, 1, 10_000);

	private static final Gen<Long> STEP_MILLIS = withEdges(longs().between(1, 10_000), 1L, 2L, 10_000L);

	@Test
	void staysBetweenItsEndsAndMovesOnlyTowardsTheTarget() {
		qt().forAll(WEIGHTS, WEIGHTS, withEdges(longs().between(0, 600_000), 0L, 1L, 600_000L), STEP_MILLIS)
			.checkAssert((from, to, durationMillis, stepMillis) -> {
				Ramp ramp = new Ramp(Weight.of(from), Weight.of(to), Duration.ofMillis(durationMillis),
						Duration.ofMillis(stepMillis));
				int previous = ramp.at(Duration.ZERO).value();
				for (long t = 0; t <= durationMillis + 2 * stepMillis; t += Math.max(1, stepMillis / 3)) {
					int value = ramp.at(Duration.ofMillis(t)).value();
					assertThat(value).isBetween(Math.min(from, to), Math.max(from, to));
					if (to >= from) {
						assertThat(value).isGreaterThanOrEqualTo(previous);
					}
					else {
						assertThat(value).isLessThanOrEqualTo(previous);
					}
					previous = value;
				}
			});
	}

	@Test
	void startsAtItsStartAndEndsExactlyAtItsTarget() {
		qt().forAll(WEIGHTS, WEIGHTS, withEdges(longs().between(1, 600_000), 1L, 600_000L), STEP_MILLIS)
			.checkAssert((from, to, durationMillis, stepMillis) -> {
				Ramp ramp = new Ramp(Weight.of(from), Weight.of(to), Duration.ofMillis(durationMillis),
						Duration.ofMillis(stepMillis));
				if (durationMillis >= stepMillis) {
					assertThat(ramp.at(Duration.ZERO).value()).isEqualTo(from);
				}
				assertThat(ramp.at(Duration.ofMillis(durationMillis))).isEqualTo(Weight.of(to));
				assertThat(ramp.at(Duration.ofMillis(durationMillis).plusDays(1))).isEqualTo(Weight.of(to));
				assertThat(ramp.finished(Duration.ofMillis(durationMillis))).isTrue();
			});
	}

	@Test
	void aDrainOfSeveralStepsPassesThroughThatManyIntermediateWeights() {
		qt().forAll(withEdges(integers().between(10, 10_000), 10, 10_000), integers().between(3, 10))
			.checkAssert((from, seconds) -> {
				Ramp drain = Ramp.down(Weight.of(from), Duration.ofSeconds(seconds), Duration.ofSeconds(1));
				assertThat(drain.steps()).isEqualTo(seconds.longValue());
				long distinct = LongStream.rangeClosed(0, seconds)
					.mapToObj(s -> drain.at(Duration.ofSeconds(s)))
					.distinct()
					.count();
				assertThat(distinct).isEqualTo(seconds + 1L);
			});
	}

	@Test
	void aWarmUpStartsRoutableAtOne() {
		qt().forAll(withEdges(integers().between(1, 10_000), 1, 2, 10_000)).checkAssert(configured -> {
			Ramp warm = Ramp.up(Weight.of(configured), Duration.ofSeconds(10), Duration.ofSeconds(1));
			assertThat(warm.at(Duration.ZERO)).isEqualTo(Weight.of(1));
			assertThat(warm.at(Duration.ofSeconds(10))).isEqualTo(Weight.of(configured));
		});
	}

	@Test
	void drainsOneHundredOverFiveSecondsInFifths() {
		Ramp drain = Ramp.down(Weight.of(100), Duration.ofSeconds(5), Duration.ofSeconds(1));
		assertThat(IntStream.rangeClosed(0, 5).map(s -> drain.at(Duration.ofSeconds(s)).value())).containsExactly(100,
				80, 60, 40, 20, 0);
		assertThat(drain.nextStepAfter(Duration.ofMillis(1500))).isEqualTo(Duration.ofSeconds(2));
		assertThat(drain.nextStepAfter(Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void aZeroDurationIsAtItsTargetAtOnce() {
		assertThat(Ramp.down(Weight.of(50), Duration.ZERO, Duration.ofSeconds(1)).at(Duration.ZERO))
			.isEqualTo(Weight.ZERO);
	}

	/**
	 * A duration that is not a multiple of its step: the last, shorter step still ends
	 * exactly at the target, at the end of the duration.
	 */
	@Test
	void aDurationThatIsNotAMultipleOfItsStepEndsAtItsTargetOnTime() {
		Ramp drain = Ramp.down(Weight.of(100), Duration.ofMillis(2_500), Duration.ofSeconds(1));
		assertThat(drain.steps()).isEqualTo(3);
		assertThat(LongStream.of(0, 999, 1_000, 2_000, 2_499, 2_500)
			.mapToInt(ms -> drain.at(Duration.ofMillis(ms)).value())).containsExactly(100, 100, 66, 33, 33, 0);
		assertThat(drain.nextStepAfter(Duration.ofMillis(2_100))).isEqualTo(Duration.ofMillis(2_500));
		assertThat(drain.finished(Duration.ofMillis(2_499))).isFalse();
		assertThat(drain.finished(Duration.ofMillis(2_500))).isTrue();
	}

	/** A step longer than the whole duration: one step, taken at the end. */
	@Test
	void aStepLongerThanTheDurationIsTakenAtTheEnd() {
		Ramp warm = Ramp.up(Weight.of(300), Duration.ofMillis(700), Duration.ofSeconds(1));
		assertThat(warm.steps()).isEqualTo(1);
		assertThat(warm.at(Duration.ofMillis(699))).isEqualTo(Weight.of(1));
		assertThat(warm.at(Duration.ofMillis(700))).isEqualTo(Weight.of(300));
	}

	/**
	 * A ramp whose target changes under it (edits during a warm-up, or during a drain the
	 * weight it drains from) and is re-based at each change, as the mode schedule does:
	 * the effective weight, min(ramp, configured), moves monotonically toward the target
	 * of the moment between changes, never passes it, never exceeds the configured
	 * weight, and arrives when the ramp was due to end.
	 */
	@Test
	void aRampRebasedOnEveryEditMovesMonotonicallyTowardItsTargetAndArrivesOnTime() {
		Gen<long[]> timing = withEdges(longs().between(1, 120_000), 1L, 120_000L).zip(STEP_MILLIS,
				org.quicktheories.generators.SourceDSL.booleans().all(),
				(duration, step, up) -> new long[] { duration, step, up ? 1 : 0 });
		Gen<List<long[]>> editGen = org.quicktheories.generators.SourceDSL.lists()
			.of(WEIGHTS.zip(longs().between(0, 130_000), (weight, at) -> new long[] { weight, at }))
			.ofSizeBetween(0, 6);
		qt().forAll(WEIGHTS, timing, editGen).checkAssert((configured, times, edits) -> {
			long durationMillis = times[0];
			long stepMillis = times[1];
			boolean up = times[2] == 1;
			Duration duration = Duration.ofMillis(durationMillis);
			Duration step = Duration.ofMillis(stepMillis);
			int weight = configured;
			Ramp ramp = up ? Ramp.up(Weight.of(weight), duration, step) : Ramp.down(Weight.of(weight), duration, step);
			long startedAt = 0;
			int effective = ramp.at(Duration.ZERO).value();
			List<long[]> sorted = edits.stream().sorted(java.util.Comparator.comparingLong(e -> e[1])).toList();
			int next = 0;
			for (long t = 0; t <= durationMillis + 2 * stepMillis; t += Math.max(1, stepMillis / 2)) {
				while (next < sorted.size() && sorted.get(next)[1] <= t) {
					weight = (int) sorted.get(next)[0];
					// The edit takes the effective weight down at once; the next step
					// re-bases.
					effective = Math.min(effective, weight);
					ramp = ramp.rebased(Duration.ofMillis(t - startedAt), Weight.of(effective),
							up ? Weight.of(weight) : Weight.ZERO);
					startedAt = t;
					next++;
				}
				int target = up ? weight : 0;
				int value = EffectiveWeight
					.of(Weight.of(weight), EffectiveWeight.Rotation.RAMPING, ramp.at(Duration.ofMillis(t - startedAt)))
					.value();
				assertThat(value).as("never above the configured weight").isLessThanOrEqualTo(weight);
				if (up) {
					assertThat(value).as("a warm-up never passes its target").isLessThanOrEqualTo(target);
					assertThat(value).as("and only climbs between edits").isGreaterThanOrEqualTo(effective);
				}
				else {
					assertThat(value).as("a drain only comes down").isLessThanOrEqualTo(effective);
				}
				effective = value;
				if (t >= durationMillis) {
					assertThat(value).as("arrives when the ramp was due to end").isEqualTo(target);
				}
			}
		});
	}

	/** The finding 1: warming 1 → 100 over 20 s, PATCH 30 at 10 s. */
	@Test
	void aWarmUpEditedBelowWhatItReachedStopsAtTheNewWeight() {
		Ramp ramp = Ramp.up(Weight.of(100), Duration.ofSeconds(20), Duration.ofSeconds(1));
		Weight reached = ramp.at(Duration.ofSeconds(10));
		assertThat(reached.value()).isEqualTo(50);
		assertThat(EffectiveWeight.of(Weight.of(30), EffectiveWeight.Rotation.RAMPING, reached).value()).isEqualTo(30);
		Ramp rebased = ramp.rebased(Duration.ofSeconds(10), Weight.of(30), Weight.of(30));
		for (int s = 0; s <= 12; s++) {
			assertThat(rebased.at(Duration.ofSeconds(s)).value()).isEqualTo(30);
		}
		Ramp raised = ramp.rebased(Duration.ofSeconds(10), reached, Weight.of(200));
		assertThat(raised.at(Duration.ZERO).value()).isEqualTo(50);
		assertThat(raised.at(Duration.ofSeconds(5)).value()).isEqualTo(125);
		assertThat(raised.at(Duration.ofSeconds(10)).value()).isEqualTo(200);
	}

	/** A step never moves away from the target, whatever moved the weight meanwhile. */
	@Test
	void aStepNeverMovesAwayFromTheTarget() {
		qt().forAll(WEIGHTS, WEIGHTS, WEIGHTS, withEdges(longs().between(0, 20_000), 0L, 10_000L, 20_000L))
			.checkAssert((from, to, current, elapsedMillis) -> {
				Ramp ramp = new Ramp(Weight.of(from), Weight.of(to), Duration.ofSeconds(10), Duration.ofSeconds(1));
				Duration elapsed = Duration.ofMillis(elapsedMillis);
				int next = ramp.next(elapsed, Weight.of(current)).value();
				if (elapsedMillis >= 10_000 || ramp.at(elapsed).value() == to) {
					assertThat(next).as("at its target, the ramp is done").isEqualTo(to);
				}
				else if (to >= from) {
					assertThat(next).isEqualTo(Math.max(current, ramp.at(elapsed).value()));
				}
				else {
					assertThat(next).isEqualTo(Math.min(current, ramp.at(elapsed).value()));
				}
			});
	}

	@Test
	void theEffectiveWeightIsNeverAboveTheConfiguredWeight() {
		for (EffectiveWeight.Rotation rotation : EffectiveWeight.Rotation.values()) {
			qt().forAll(WEIGHTS, WEIGHTS).checkAssert((configured, ramp) -> {
				int effective = EffectiveWeight.of(Weight.of(configured), rotation, Weight.of(ramp)).value();
				assertThat(effective).isBetween(0, configured);
				int expected = switch (rotation) {
					case IN -> configured;
					case RAMPING -> Math.min(configured, ramp);
					case OUT -> 0;
				};
				assertThat(effective).isEqualTo(expected);
			});
		}
	}

}
