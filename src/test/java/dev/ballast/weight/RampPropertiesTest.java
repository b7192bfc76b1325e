package dev.ballast.weight;

import java.time.Duration;
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

}
