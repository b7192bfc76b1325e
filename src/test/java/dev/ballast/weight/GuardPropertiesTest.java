package dev.ballast.weight;

import java.util.List;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The guard's two definitions: the nominal weight an instance counts with, and a traffic
 * shift's scope, each against an oracle written independently of the code.
 */
class GuardPropertiesTest {

	/**
	 * After any sequence of weights set by hand, an instance counts with the last
	 * positive one (0 if there was none); a weight a shift sets counts as it is.
	 */
	@Test
	void nominalWeightIsTheLastPositiveWeightSetByHand() {
		qt().forAll(lists().of(withEdges(integers().between(0, 10_000), 0, 1, 10_000)).ofSizeBetween(1, 12),
				lists().of(booleans().all()).ofSizeBetween(12, 12))
			.checkAssert((weights, byHand) -> {
				Weight nominal = Weight.ZERO;
				int lastPositive = 0;
				for (int i = 0; i < weights.size(); i++) {
					int weight = weights.get(i);
					nominal = NominalWeight.after(nominal, Weight.of(weight), byHand.get(i));
					lastPositive = byHand.get(i) ? (weight > 0 ? weight : lastPositive) : weight;
				}
				assertThat(nominal.value()).isEqualTo(lastPositive);
				int last = weights.getLast();
				assertThat(NominalWeight.heldAtZero(Weight.of(last), nominal)).isEqualTo(last == 0 && lastPositive > 0);
			});
	}

	/**
	 * At 100% the shift scope admits exactly what the capacity rule it replaced admitted:
	 * the to group's capable weight must be at least (100 - maxUnroutablePercent)% of the
	 * from group's.
	 */
	@Test
	void goingToAllOfItNeedsTheCapacityTheOldRuleAskedFor() {
		qt().forAll(withEdges(integers().between(0, 100_000), 0, 1, 100_000),
				withEdges(integers().between(0, 100_000), 0, 1, 100_000),
				withEdges(integers().between(0, 100), 0, 1, 25, 99, 100))
			.checkAssert((fromNominal, toCapable, maxPercent) -> {
				UnroutableBudget.Scope scope = UnroutableBudget.shift("release 1", fromNominal, toCapable, 0, 100,
						List.of());
				boolean admitted = UnroutableBudget.check(List.of(scope), MaxUnroutable.percentOf(maxPercent))
					.isEmpty();
				boolean oldRule = (long) toCapable * 100 >= (long) fromNominal * (100 - maxPercent);
				assertThat(admitted).as("from %d, to %d, limit %d%%", fromNominal, toCapable, maxPercent)
					.isEqualTo(oldRule);
			});
	}

	/**
	 * The load the to group cannot carry only grows with the share shifted, so stepping
	 * back is always admitted, and a to group that can carry the whole from group is
	 * never refused.
	 */
	@Test
	void uncoveredLoadGrowsWithTheShareAndIsNoneWhenTheToGroupCarriesAll() {
		qt().forAll(integers().between(0, 100_000), integers().between(0, 100_000), integers().between(0, 100),
				integers().between(0, 100))
			.checkAssert((fromNominal, toCapable, a, b) -> {
				int low = Math.min(a, b);
				int high = Math.max(a, b);
				UnroutableBudget.Scope up = UnroutableBudget.shift("r", fromNominal, toCapable, low, high, List.of());
				assertThat(up.after()).isGreaterThanOrEqualTo(up.before());
				UnroutableBudget.Scope down = UnroutableBudget.shift("r", fromNominal, toCapable, high, low, List.of());
				assertThat(UnroutableBudget.check(List.of(down), MaxUnroutable.percentOf(0))).isEmpty();
				if (toCapable >= fromNominal) {
					assertThat(up.after()).isZero();
				}
			});
	}

	@Test
	void aCanaryOfOneInFourCannotTakeAllButCanTakeAQuarter() {
		UnroutableBudget.Scope all = UnroutableBudget.shift("release 7", 300, 100, 25, 100, List.of());
		assertThat(UnroutableBudget.check(List.of(all), MaxUnroutable.DEFAULT))
			.hasValueSatisfying(breach -> assertThat(breach.resultingWeight()).isEqualTo(200));
		assertThat(UnroutableBudget.check(List.of(UnroutableBudget.shift("release 7", 300, 100, 5, 25, List.of())),
				MaxUnroutable.DEFAULT))
			.isEmpty();
	}

}
