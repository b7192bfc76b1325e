package dev.ballast.weight;

import java.util.List;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

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
	@Test
	void splitsExactlyAndFairly() {
		qt().forAll(withEdges(longs().between(0, 50_000), 0L, 1L, 50_000L),
				lists().of(withEdges(integers().between(0, 10_000), 0, 1, 10_000)).ofSizeBetween(1, 20))
			.checkAssert((total, weights) -> {
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
			});
	}

}
