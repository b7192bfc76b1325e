package dev.ballast.dns;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

import dev.ballast.weight.LocalityPolicy;
import dev.ballast.weight.LocalityView;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The SRV weight mapping against HAProxy's reading of it, {@code (w + 255) / 256} (2.6,
 * {@code resolvers.c}), and against exact rational arithmetic for the bounds the class
 * states.
 */
class SrvWeightsTest {

	/** How HAProxy 2.x turns an SRV weight into its server weight. */
	private static int haproxyReads(int srvWeight) {
		return (srvWeight + 255) / 256;
	}

	@Test
	void everyEffectiveWeightOfEveryLargestFitsTheRecordAndReadsBackExactlyInHaproxy() {
		// 10,000 × 10,000 pairs would be 10^8: every effective weight against the edges
		// and a spread of largest weights is enumerated instead.
		for (int largest : List.of(1, 2, 3, 254, 255, 256, 509, 510, 511, 1000, 9999, 10_000)) {
			for (int effective = 0; effective <= largest; effective++) {
				int srv = SrvWeights.srvWeight(effective, largest);
				int h = SrvWeights.haproxyWeight(effective, largest);
				assertThat(srv).isBetween(0, 65_535);
				assertThat(srv % 256).isZero();
				assertThat(haproxyReads(srv)).isEqualTo(h);
				assertThat(h == 0).isEqualTo(effective == 0);
			}
			assertThat(SrvWeights.haproxyWeight(largest, largest)).isEqualTo(255);
		}
	}

	@Test
	void eachWeightRelativeToTheLargestIsRoundedHalfUpOrRaisedToOne() {
		// The effective weight as a fraction (in ten-thousandths) of the largest, so that
		// every drawn pair is a valid one.
		qt().forAll(withEdges(integers().between(1, 10_000), 1, 2, 509, 510, 511, 10_000),
				withEdges(integers().between(0, 10_000), 0, 1, 10_000))
			.checkAssert((largest, fraction) -> {
				int effective = (int) ((long) fraction * largest / 10_000);
				int h = SrvWeights.haproxyWeight(effective, largest);
				if (effective == 0) {
					assertThat(h).isZero();
					return;
				}
				// |h/255 − e/M| ≤ 1/510 ⟺ |510·h·M − 510·255·e|... kept in integers:
				// 2·|h·M − 255·e| ≤ M, ties (= M) going up.
				long twice = 2L * ((long) h * largest - 255L * effective);
				if (2L * 255 * effective < largest) {
					assertThat(h).as("raised to 1 below 1/510 of the largest").isEqualTo(1);
				}
				else {
					assertThat(twice).isBetween((long) -largest + 1, (long) largest);
				}
			});
	}

	@Test
	void haproxySharesStayWithinTheStatedBoundOfBallastShares() {
		qt().forAll(lists().of(withEdges(integers().between(1, 10_000), 1, 10_000)).ofSizeBetween(1, 60))
			.checkAssert(weights -> {
				int n = weights.size();
				int largest = weights.stream().mapToInt(Integer::intValue).max().orElseThrow();
				long total = weights.stream().mapToLong(Integer::longValue).sum();
				long haproxyTotal = weights.stream()
					.mapToLong(weight -> SrvWeights.haproxyWeight(weight, largest))
					.sum();
				boolean anyRaised = weights.stream().anyMatch(weight -> 2L * 255 * weight < largest);
				long divisor = anyRaised ? 255 : 510;
				for (int weight : weights) {
					// |h/H − e/E| ≤ (1 + n·e/E) / divisor, multiplied out by divisor·H·E:
					BigInteger h = BigInteger.valueOf(SrvWeights.haproxyWeight(weight, largest));
					BigInteger e = BigInteger.valueOf(weight);
					BigInteger bigH = BigInteger.valueOf(haproxyTotal);
					BigInteger bigE = BigInteger.valueOf(total);
					BigInteger left = h.multiply(bigE)
						.subtract(e.multiply(bigH))
						.abs()
						.multiply(BigInteger.valueOf(divisor));
					BigInteger right = bigH.multiply(bigE.add(BigInteger.valueOf(n).multiply(e)));
					assertThat(left).as("share of %d among %s", weight, weights).isLessThanOrEqualTo(right);
				}
			});
	}

	/**
	 * A zone's view ({@link LocalityView}) through SRV records: the share HAProxy sends
	 * across zones is within the bound of the view's own, S, summed over the m instances
	 * across: (m + n·S) / 510, or / 255 when a weight is raised (docs/dns.md).
	 */
	@Test
	void theCrossZoneShareHaproxyReadsFromAZonesViewIsWithinTheSummedBound() {
		Gen<LocalityView.Member> members = Generate.pick(Arrays.asList("a", "b", "c", null))
			.zip(withEdges(integers().between(1, 10_000), 1, 10_000), withEdges(integers().between(0, 100), 0, 100),
					(zone, nominal, percent) -> new LocalityView.Member(zone, Weight.of(nominal),
							Weight.of(nominal * percent / 100)));
		qt().forAll(lists().of(members).ofSizeBetween(1, 30), withEdges(integers().between(0, 100), 0, 20, 100))
			.checkAssert((service, cap) -> {
				List<Weight> view = LocalityView.of(service, "a", LocalityPolicy.preferLocal(cap));
				int largest = view.stream().mapToInt(Weight::value).max().orElseThrow();
				if (largest == 0) {
					return;
				}
				long total = 0;
				long across = 0;
				long haproxyTotal = 0;
				long haproxyAcross = 0;
				int n = 0;
				int m = 0;
				boolean raised = false;
				for (int i = 0; i < service.size(); i++) {
					int weight = view.get(i).value();
					if (weight == 0) {
						continue;
					}
					int h = haproxyReads(SrvWeights.srvWeight(weight, largest));
					boolean crosses = !"a".equals(service.get(i).zone());
					n++;
					m += crosses ? 1 : 0;
					total += weight;
					across += crosses ? weight : 0;
					haproxyTotal += h;
					haproxyAcross += crosses ? h : 0;
					raised |= 2L * 255 * weight < largest;
				}
				// |A/H − a/E| ≤ (m + n·a/E) / divisor, multiplied out by divisor·H·E:
				BigInteger left = BigInteger.valueOf(haproxyAcross)
					.multiply(BigInteger.valueOf(total))
					.subtract(BigInteger.valueOf(across).multiply(BigInteger.valueOf(haproxyTotal)))
					.abs()
					.multiply(BigInteger.valueOf(raised ? 255 : 510));
				BigInteger right = BigInteger.valueOf(haproxyTotal)
					.multiply(BigInteger.valueOf((long) m * total + (long) n * across));
				assertThat(left)
					.as("across %d of %d, HAProxy %d of %d, in %s", across, total, haproxyAcross, haproxyTotal, view)
					.isLessThanOrEqualTo(right);
			});
	}

	@Test
	void theIssuesWeightsGiveHaproxyTheirExactProportions() {
		// 300/200/100 became 2/1/1 in HAProxy as raw SRV weights; mapped, 255/170/85.
		assertThat(List.of(300, 200, 100).stream().map(weight -> SrvWeights.srvWeight(weight, 300)).toList())
			.containsExactly(65_280, 43_520, 21_760);
	}

	@Test
	void anEffectiveWeightAboveTheLargestIsRefused() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> SrvWeights.haproxyWeight(11, 10))
			.withMessageContaining("got 11");
	}

}
