package dev.ballast.weight;

import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ApportionTest {

	@Test
	void givesTheSpareUnitsToTheLargestRemainders() {
		assertThat(Apportion.of(400, List.of(100, 200, 300))).extracting(Weight::value).containsExactly(67, 133, 200);
		assertThat(Apportion.of(10, List.of(1, 1, 1))).extracting(Weight::value).containsExactly(4, 3, 3);
		assertThat(Apportion.of(9, List.of(0, 0, 0))).extracting(Weight::value).containsExactly(3, 3, 3);
		assertThat(Apportion.of(0, List.of(5, 7))).extracting(Weight::value).containsExactly(0, 0);
	}

	@Test
	void stopsAtTheMaximumWeight() {
		assertThat(Apportion.of(50_000, List.of(1, 1))).extracting(Weight::value).containsExactly(10_000, 10_000);
	}

	/** Parts sum to the total and each is within one unit of its exact share. */
	@Property
	void splitsExactlyAndFairly(@ForAll @LongRange(max = 50_000) long total,
			@ForAll @Size(min = 1, max = 20) List<@IntRange(max = 10_000) Integer> weights) {
		List<Weight> parts = Apportion.of(total, weights);
		long sum = weights.stream().mapToLong(Integer::longValue).sum();
		boolean capped = parts.stream().anyMatch(part -> part.value() == Weight.MAX);
		if (!capped) {
			assertThat(parts.stream().mapToLong(Weight::value).sum()).isEqualTo(total);
		}
		for (int i = 0; i < weights.size(); i++) {
			double exact = sum == 0 ? (double) total / weights.size() : (double) total * weights.get(i) / sum;
			if (parts.get(i).value() < Weight.MAX) {
				assertThat((double) parts.get(i).value()).isBetween(Math.floor(exact), Math.ceil(exact));
			}
		}
	}

}
