package dev.ballast.weight;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import dev.ballast.weight.UnroutableBudget.Breach;
import dev.ballast.weight.UnroutableBudget.Member;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class UnroutableBudgetTest {

	@Test
	void admitsExactlyTwoOfTenEqualInstancesAtTwentyFivePercent() {
		List<Member> members = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			members.add(new Member("i" + i, null, 100, i < 2));
		}
		assertThat(check(members, Set.of("i2"), 25)).isPresent();
		List<Member> one = new ArrayList<>(members);
		one.set(1, new Member("i1", null, 100, false));
		assertThat(check(one, Set.of("i1"), 25)).isEmpty();
	}

	@Test
	void explainsTheBreachWithPercentagesAndHolders() {
		List<Member> members = List.of(new Member("a", null, 100, true), new Member("b", null, 100, false),
				new Member("c", null, 100, false));
		Breach breach = check(members, Set.of("b"), 50).orElseThrow();
		assertThat(breach.scope()).isEqualTo("service");
		assertThat(breach.currentPercent()).isEqualByComparingTo(new BigDecimal("33.3"));
		assertThat(breach.resultingPercent()).isEqualByComparingTo(new BigDecimal("66.7"));
		assertThat(breach.holders()).containsExactly("a");
		assertThat(breach.nominalWeight()).isEqualTo(300);
		assertThat(breach.resultingWeight()).isEqualTo(200);
	}

	@Test
	void guardsEachZoneOnItsOwn() {
		List<Member> members = List.of(new Member("a1", "az-1", 100, false), new Member("a2", "az-1", 100, false),
				new Member("b1", "az-2", 100, false), new Member("b2", "az-2", 100, false),
				new Member("b3", "az-2", 100, false), new Member("b4", "az-2", 100, false),
				new Member("c1", "az-3", 100, false), new Member("c2", "az-3", 100, false));
		Optional<Breach> breach = check(members, Set.of("a1", "a2"), 25);
		assertThat(breach).hasValueSatisfying(b -> assertThat(b.scope()).isEqualTo("zone az-1"));
		assertThat(check(members, Set.of("b1", "b2"), 25))
			.hasValueSatisfying(b -> assertThat(b.scope()).isEqualTo("zone az-2"));
		assertThat(check(members, Set.of("a1", "c1"), 25)).as("one instance of each zone").isEmpty();
		assertThat(check(members, Set.of("b1"), 25)).isEmpty();
	}

	@Test
	void anActionThatTakesNothingOutIsAlwaysAllowed() {
		List<Member> members = List.of(new Member("a", null, 100, true), new Member("b", null, 0, false));
		assertThat(check(members, Set.of("a", "b"), 0)).isEmpty();
	}

	/** Whatever it admits stays within the limit, in the service and in every zone. */
	@Test
	void neverAdmitsMoreThanTheLimit() {
		Gen<List<Integer>> weights = lists().of(withEdges(integers().between(0, 10_000), 0, 1, 10_000))
			.ofSizeBetween(0, 12);
		Gen<List<Integer>> zones = lists().of(integers().between(0, 2)).ofSizeBetween(0, 12);
		Gen<List<Boolean>> unroutable = lists().of(booleans().all()).ofSizeBetween(0, 12);
		Gen<Set<Integer>> proposedIndexes = lists().of(integers().between(0, 11))
			.ofSizeBetween(0, 12)
			.map(indexes -> (Set<Integer>) new HashSet<>(indexes));
		qt().forAll(weights, zones.zip(unroutable, Placement::new),
				withEdges(integers().between(0, 100), 0, 1, 99, 100), proposedIndexes)
			.checkAssert((weightList, placement, maxPercent, indexes) -> {
				List<Integer> zoneList = placement.zones();
				List<Boolean> flags = placement.unroutable();
				List<Member> members = new ArrayList<>();
				for (int i = 0; i < weightList.size(); i++) {
					String zone = i < zoneList.size() ? "z" + zoneList.get(i) : null;
					boolean out = i < flags.size() && flags.get(i);
					members.add(new Member("i" + i, zone, weightList.get(i), out));
				}
				Set<String> proposed = new HashSet<>();
				indexes.forEach(i -> proposed.add("i" + i));
				if (check(members, proposed, maxPercent).isPresent()) {
					return;
				}
				assertWithin(members, proposed, maxPercent, null);
				for (int zone = 0; zone < 3; zone++) {
					assertWithin(members, proposed, maxPercent, "z" + zone);
				}
			});
	}

	private static void assertWithin(List<Member> members, Set<String> proposed, int maxPercent, String zone) {
		long nominal = 0;
		long before = 0;
		long after = 0;
		for (Member member : members) {
			if (zone != null && !zone.equals(member.zone())) {
				continue;
			}
			nominal += member.weight();
			if (member.unroutable()) {
				before += member.weight();
			}
			if (member.unroutable() || proposed.contains(member.id())) {
				after += member.weight();
			}
		}
		long largest = members.stream()
			.filter(member -> zone == null || zone.equals(member.zone()))
			.mapToLong(Member::weight)
			.max()
			.orElse(0);
		long outAfter = members.stream()
			.filter(member -> zone == null || zone.equals(member.zone()))
			.filter(member -> member.weight() > 0 && (member.unroutable() || proposed.contains(member.id())))
			.count();
		boolean oneInstance = maxPercent > 0 && outAfter <= 1 && after <= largest;
		if (after > before && !oneInstance) {
			assertThat(after * 100).as("zone %s", zone).isLessThanOrEqualTo(nominal * maxPercent);
		}
	}

	@Test
	void admitsOneInstanceOfASmallServiceOrZoneWhenNothingElseIsOut() {
		List<Member> three = List.of(new Member("a", "za", 100, false), new Member("b", "zb", 100, false),
				new Member("c", "zc", 100, false));
		assertThat(check(three, Set.of("a"), 25)).isEmpty();
		List<Member> oneOut = List.of(new Member("a", "za", 100, true), new Member("b", "zb", 100, false),
				new Member("c", "zc", 100, false));
		assertThat(check(oneOut, Set.of("b"), 25)).hasValueSatisfying(breach -> {
			assertThat(breach.scope()).isEqualTo("service");
			assertThat(breach.holders()).containsExactly("a");
		});
		assertThat(check(three, Set.of("a"), 0)).isPresent();
	}

	@Test
	void aCountAdmitsThatManyInstances() {
		List<Member> four = List.of(new Member("a", null, 100, true), new Member("b", null, 100, false),
				new Member("c", null, 100, false), new Member("d", null, 100, false));
		assertThat(check(four, Set.of("b"), MaxUnroutable.count(2))).isEmpty();
		assertThat(check(four, Set.of("b", "c"), MaxUnroutable.count(2))).isPresent();
		assertThat(check(four, Set.of("b"), MaxUnroutable.count(1))).isPresent();
	}

	/**
	 * Lowering a weight takes capacity in proportion; the peak it leaves keeps counting
	 * until the window ends, and a replacement that brings the capacity back lifts the
	 * scope to it.
	 */
	@Test
	void capacityThatLeftCountsUntilTheWindowEndsOrItComesBack() {
		Instant now = Instant.parse("2026-01-01T00:00:00Z");
		List<Member> four = List.of(new Member("a", null, 100, false), new Member("b", null, 100, false),
				new Member("c", null, 100, false), new Member("d", null, 100, false));
		List<Member> aAtOne = List.of(new Member("a", null, 1, false), four.get(1), four.get(2), four.get(3));
		List<UnroutableBudget.Scope> lowered = UnroutableBudget.scopes(four, aAtOne, List.of(), now);
		assertThat(lowered.getFirst().after()).isEqualTo(99);
		List<CapacityPeak> peaks = UnroutableBudget.peaks(four, aAtOne, now.plusSeconds(600), "a lowered");
		assertThat(peaks).containsExactly(new CapacityPeak("service", 400, now.plusSeconds(600), "a lowered"));
		List<Member> bOut = List.of(aAtOne.get(0), new Member("b", null, 100, true), four.get(2), four.get(3));
		// b carries a third of the capacity once a is at 1: more than an average
		// instance,
		// so the floor does not admit it; a budget of 34% does, once the peak is gone.
		MaxUnroutable limit = MaxUnroutable.percentOf(34);
		assertThat(UnroutableBudget.check(UnroutableBudget.scopes(aAtOne, bOut, peaks, now.plusSeconds(599)), limit))
			.hasValueSatisfying(breach -> {
				assertThat(breach.resultingWeight()).isEqualTo(199);
				assertThat(breach.holdings()).singleElement().asString().contains("capacity 99 that left");
			});
		assertThat(UnroutableBudget.check(UnroutableBudget.scopes(aAtOne, bOut, peaks, now.plusSeconds(600)), limit))
			.isEmpty();
		assertThat(UnroutableBudget.check(UnroutableBudget.scopes(aAtOne, bOut, peaks, now.plusSeconds(600)),
				MaxUnroutable.DEFAULT))
			.as("the floor admits only an average instance: b is 100 of 301 in four")
			.isPresent();
		List<Member> replaced = List.of(aAtOne.get(0), four.get(1), four.get(2), four.get(3),
				new Member("e", null, 99, false));
		List<Member> replacedBOut = List.of(aAtOne.get(0), bOut.get(1), four.get(2), four.get(3), replaced.get(4));
		assertThat(UnroutableBudget.check(UnroutableBudget.scopes(replaced, replacedBOut, peaks, now),
				MaxUnroutable.DEFAULT))
			.isEmpty();
	}

	private static Optional<Breach> check(List<Member> members, Set<String> proposed, int maxPercent) {
		return check(members, proposed, MaxUnroutable.percentOf(maxPercent));
	}

	/** Takes {@code proposed} out of rotation, nothing else changing. */
	private static Optional<Breach> check(List<Member> members, Set<String> proposed, MaxUnroutable limit) {
		List<Member> after = members.stream()
			.map(member -> proposed.contains(member.id())
					? new Member(member.id(), member.zone(), member.weight(), true) : member)
			.toList();
		return UnroutableBudget.check(UnroutableBudget.scopes(members, after, List.of(), Instant.EPOCH), limit);
	}

	/** Each instance's zone and whether it is unroutable already, by index. */
	private record Placement(List<Integer> zones, List<Boolean> unroutable) {
	}

}
