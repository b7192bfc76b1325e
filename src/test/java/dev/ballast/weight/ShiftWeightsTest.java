package dev.ballast.weight;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ballast.weight.ShiftWeights.Member;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class ShiftWeightsTest {

	private static final Gen<Integer> WEIGHTS = withEdges(integers().between(0, 10_000), 0, 1, 100, 10_000);

	/**
	 * The finding 2: b1–b3 and g1 at 100, b3 in maintenance; 10% and 50% of what
	 * serves, not of what is configured.
	 */
	@Test
	void givesTheNewVersionItsShareOfWhatServesWithAnInstanceInMaintenance() {
		List<Member> members = List.of(new Member("b1", false, 100, 100, true), new Member("b2", false, 100, 100, true),
				new Member("b3", false, 100, 100, false), new Member("g1", true, 100, 100, true));
		Map<String, Weight> ten = ShiftWeights.at(members, 10);
		assertThat(ten).containsEntry("g1", Weight.of(30))
			.containsEntry("b1", Weight.of(135))
			.containsEntry("b2", Weight.of(135))
			.containsEntry("b3", Weight.of(100));
		Map<String, Weight> fifty = ShiftWeights.at(members, 50);
		assertThat(fifty).containsEntry("g1", Weight.of(150))
			.containsEntry("b1", Weight.of(75))
			.containsEntry("b2", Weight.of(75));
		Map<String, Weight> all = ShiftWeights.at(members, 100);
		assertThat(all).containsEntry("g1", Weight.of(300))
			.containsEntry("b1", Weight.ZERO)
			.containsEntry("b3", Weight.ZERO);
	}

	/**
	 * Over any members and any step: the to group's part of what serves is the step's
	 * percentage of it, to one weight unit (checked in exact integers); what serves is
	 * unchanged unless a weight would pass the maximum, where no weight does; members
	 * that cannot take traffic keep their weight (0 for from members at 100%).
	 */
	@Test
	void sharesExactlyWhatServesAndLeavesHeldMembersAlone() {
		Gen<Member> member = WEIGHTS.zip(WEIGHTS, booleans().all(), booleans().all(),
				(original, current, to, serving) -> new Member("m", to, original, current, serving));
		qt().forAll(lists().of(member).ofSizeBetween(1, 12), withEdges(integers().between(0, 100), 0, 1, 99, 100))
			.checkAssert((drawn, percent) -> {
				List<Member> members = new ArrayList<>();
				for (int i = 0; i < drawn.size(); i++) {
					Member m = drawn.get(i);
					members.add(new Member("m" + i, m.to(), m.original(), m.current(), m.serving()));
				}
				Map<String, Weight> weights = ShiftWeights.at(members, percent);
				long servingBefore = members.stream().filter(Member::serving).mapToLong(Member::current).sum();
				long to = members.stream()
					.filter(m -> m.serving() && m.to())
					.mapToLong(m -> weights.get(m.id()).value())
					.sum();
				long from = members.stream()
					.filter(m -> m.serving() && !m.to())
					.mapToLong(m -> weights.get(m.id()).value())
					.sum();
				boolean toServes = members.stream().anyMatch(m -> m.serving() && m.to());
				boolean fromServes = members.stream().anyMatch(m -> m.serving() && !m.to());
				int share = !toServes ? 0 : !fromServes ? 100 : percent;
				long serving = to + from;
				// |to - serving * share / 100| < 1, in integers: to * 100 within share *
				// serving - 100 and share * serving
				BigInteger exact = BigInteger.valueOf(serving).multiply(BigInteger.valueOf(share));
				BigInteger scaled = BigInteger.valueOf(to).multiply(BigInteger.valueOf(100));
				assertThat(scaled).isLessThanOrEqualTo(exact);
				assertThat(scaled.add(BigInteger.valueOf(100))).isGreaterThan(exact);
				long toPart = servingBefore * share / 100;
				boolean capped = passes(members.stream().filter(m -> m.serving() && m.to()).toList(), toPart) || passes(
						members.stream().filter(m -> m.serving() && !m.to()).toList(), servingBefore - toPart);
				if (!capped) {
					assertThat(serving).as("what serves is shared, not made or taken").isEqualTo(servingBefore);
				}
				assertThat(serving).isLessThanOrEqualTo(servingBefore);
				boolean retired = percent == 100 && toServes;
				for (Member m : members) {
					if (!m.serving()) {
						int expected = retired && !m.to() ? 0 : Math.min(m.current(), Weight.MAX);
						assertThat(weights.get(m.id()).value()).as("held member %s", m).isEqualTo(expected);
					}
					if (retired && !m.to()) {
						assertThat(weights.get(m.id())).isEqualTo(Weight.ZERO);
					}
				}
			});
	}

	/**
	 * Whether giving {@code part} to {@code group} in proportion to its originals would
	 * give a member more than the maximum weight (its exact share, before rounding).
	 */
	private static boolean passes(List<Member> group, long part) {
		if (group.isEmpty()) {
			return false;
		}
		long sum = group.stream().mapToLong(Member::original).sum();
		long largest = group.stream().mapToLong(Member::original).max().orElse(0);
		return sum == 0 ? part > (long) Weight.MAX * group.size() : part * largest > (long) Weight.MAX * sum;
	}

	/** Within a group, parts follow the members' weights before the release. */
	@Test
	void splitsEachGroupInProportionToItsOriginalWeights() {
		List<Member> members = List.of(new Member("b1", false, 300, 300, true), new Member("b2", false, 100, 100, true),
				new Member("g1", true, 200, 200, true), new Member("g2", true, 200, 200, true));
		Map<String, Weight> half = ShiftWeights.at(members, 50);
		assertThat(half).containsEntry("b1", Weight.of(300))
			.containsEntry("b2", Weight.of(100))
			.containsEntry("g1", Weight.of(200))
			.containsEntry("g2", Weight.of(200));
		Map<String, Weight> quarter = ShiftWeights.at(members, 25);
		assertThat(quarter).containsEntry("b1", Weight.of(450))
			.containsEntry("b2", Weight.of(150))
			.containsEntry("g1", Weight.of(100))
			.containsEntry("g2", Weight.of(100));
	}

	/** Three at the maximum moving onto one: the shared sum is lowered, not the share. */
	@Test
	void keepsTheShareExactWhereAWeightWouldPassTheMaximum() {
		List<Member> members = List.of(new Member("b1", false, 10_000, 10_000, true),
				new Member("b2", false, 10_000, 10_000, true), new Member("b3", false, 10_000, 10_000, true),
				new Member("g1", true, 10_000, 10_000, true));
		Map<String, Weight> weights = ShiftWeights.at(members, 50);
		long to = weights.get("g1").value();
		long from = weights.get("b1").value() + weights.get("b2").value() + weights.get("b3").value();
		assertThat(to).isLessThanOrEqualTo(Weight.MAX);
		assertThat(to * 100 / (to + from)).isEqualTo(50);
	}

}
