package dev.ballast.weight;

import java.time.Duration;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RampPropertiesTest {

	@Property
	void staysBetweenItsEndsAndMovesOnlyTowardsTheTarget(@ForAll("weights") int from, @ForAll("weights") int to,
			@ForAll @LongRange(min = 0, max = 600_000) long durationMillis,
			@ForAll @LongRange(min = 1, max = 10_000) long stepMillis) {
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
	}

	@Property
	void startsAtItsStartAndEndsExactlyAtItsTarget(@ForAll("weights") int from, @ForAll("weights") int to,
			@ForAll @LongRange(min = 1, max = 600_000) long durationMillis,
			@ForAll @LongRange(min = 1, max = 10_000) long stepMillis) {
		Ramp ramp = new Ramp(Weight.of(from), Weight.of(to), Duration.ofMillis(durationMillis),
				Duration.ofMillis(stepMillis));
		if (durationMillis >= stepMillis) {
			assertThat(ramp.at(Duration.ZERO).value()).isEqualTo(from);
		}
		assertThat(ramp.at(Duration.ofMillis(durationMillis))).isEqualTo(Weight.of(to));
		assertThat(ramp.at(Duration.ofMillis(durationMillis).plusDays(1))).isEqualTo(Weight.of(to));
		assertThat(ramp.finished(Duration.ofMillis(durationMillis))).isTrue();
	}

	@Property
	void aDrainOfSeveralStepsPassesThroughThatManyIntermediateWeights(
			@ForAll @IntRange(min = 10, max = 10_000) int from, @ForAll @IntRange(min = 3, max = 10) int seconds) {
		Ramp drain = Ramp.down(Weight.of(from), Duration.ofSeconds(seconds), Duration.ofSeconds(1));
		assertThat(drain.steps()).isEqualTo(seconds);
		long distinct = java.util.stream.LongStream.rangeClosed(0, seconds)
			.mapToObj(s -> drain.at(Duration.ofSeconds(s)))
			.distinct()
			.count();
		assertThat(distinct).isEqualTo(seconds + 1L);
	}

	@Property
	void aWarmUpStartsRoutableAtOne(@ForAll @IntRange(min = 1, max = 10_000) int configured) {
		Ramp warm = Ramp.up(Weight.of(configured), Duration.ofSeconds(10), Duration.ofSeconds(1));
		assertThat(warm.at(Duration.ZERO)).isEqualTo(Weight.of(1));
		assertThat(warm.at(Duration.ofSeconds(10))).isEqualTo(Weight.of(configured));
	}

	@Test
	void drainsOneHundredOverFiveSecondsInFifths() {
		Ramp drain = Ramp.down(Weight.of(100), Duration.ofSeconds(5), Duration.ofSeconds(1));
		assertThat(java.util.stream.IntStream.rangeClosed(0, 5).map(s -> drain.at(Duration.ofSeconds(s)).value()))
			.containsExactly(100, 80, 60, 40, 20, 0);
		assertThat(drain.nextStepAfter(Duration.ofMillis(1500))).isEqualTo(Duration.ofSeconds(2));
		assertThat(drain.nextStepAfter(Duration.ofSeconds(9))).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void aZeroDurationIsAtItsTargetAtOnce() {
		assertThat(Ramp.down(Weight.of(50), Duration.ZERO, Duration.ofSeconds(1)).at(Duration.ZERO))
			.isEqualTo(Weight.ZERO);
	}

	@Provide
	Arbitrary<Integer> weights() {
		return Arbitraries.integers().between(0, 10_000).edgeCases(edges -> edges.includeOnly(0, 1, 10_000));
	}

}
