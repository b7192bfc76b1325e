package dev.ballast.weight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import dev.ballast.weight.LocalityView.Member;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class LocalityViewTest {

	private static final Gen<String> ZONES = Generate.pick(Arrays.asList("a", "b", "c", null));

	private static final Gen<String> CALLERS = Generate.pick(List.of("a", "b", "c", "elsewhere"));

	/** Mostly at most the nominal weight, as instances are: ramps and drains lower it. */
	private static final Gen<Member> MEMBERS = ZONES.zip(withEdges(integers().between(0, 10_000), 0, 1, 10_000),
			withEdges(integers().between(0, 100), 0, 100),
			(zone, nominal, percent) -> new Member(zone, Weight.of(nominal), Weight.of(nominal * percent / 100)));

	private static final Gen<List<Member>> SERVICES = lists().of(MEMBERS).ofSizeBetween(0, 12);

	private static final Gen<LocalityPolicy> POLICIES = withEdges(integers().between(0, 100), 0, 1, 20, 100)
		.map(LocalityPolicy::preferLocal);

	@Test
	void keepsAHealthyZoneToItselfAtItsEffectiveWeights() {
		// 1.4 * 100 = 140: exactly at the threshold, zone a keeps all its traffic.
		List<Member> service = List.of(member("a", 100, 100), member("a", 40, 0), member("b", 100, 100));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(20)))).containsExactly(100, 0, 0);
		// One unit below it, zone a spills 1 - 1.4 * 99 / 141 = 1.7%.
		List<Member> below = List.of(member("a", 100, 99), member("a", 41, 0), member("b", 100, 100));
		assertThat(values(LocalityView.of(below, "a", LocalityPolicy.preferLocal(20)))).containsExactly(9830, 0, 170);
	}

	/**
	 * The worked example of docs/locality.md: two zones of three instances at 100; two of
	 * zone a's are drained. Zone a lacks 1 - 1.4 * 100 / 300 = 53.33% of its capacity;
	 * zone b could take 1.4 * 300 - 300 = 120, 40% of zone a's traffic; the cap allows
	 * 20%.
	 */
	@Test
	void spillsTheDeficitUpToTheCapAndTheSpareCapacity() {
		List<Member> service = List.of(member("a", 100, 100), member("a", 100, 0), member("a", 100, 0),
				member("b", 100, 100), member("b", 100, 100), member("b", 100, 100));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(20)))).containsExactly(8000, 0, 0,
				667, 667, 666);
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(50)))).containsExactly(6000, 0, 0,
				1334, 1333, 1333);
		assertThat(values(LocalityView.of(service, "b", LocalityPolicy.preferLocal(20)))).containsExactly(0, 0, 0, 100,
				100, 100);
	}

	@Test
	void spreadsTheSpillOverZonesByTheirSpareCapacity() {
		// Zone b has 1.4 * 200 - 200 = 80 to spare, zone c 1.4 * 100 - 100 = 40.
		List<Member> service = List.of(member("a", 100, 10), member("a", 100, 0), member("b", 200, 200),
				member("c", 100, 100));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(30)))).containsExactly(7000, 0, 2000,
				1000);
	}

	@Test
	void spillsNothingWhenNoZoneCanTakeIt() {
		List<Member> service = List.of(member("a", 100, 50), member("a", 100, 0), member("b", 100, 70));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(100)))).containsExactly(50, 0, 0);
	}

	@Test
	void countsInstancesWithoutAZoneAsAnotherZone() {
		List<Member> service = List.of(member("a", 100, 100), member(null, 100, 100));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(20)))).containsExactly(100, 0);
		List<Member> drained = List.of(member("a", 100, 10), member("a", 100, 0), member(null, 100, 100));
		assertThat(values(LocalityView.of(drained, "a", LocalityPolicy.preferLocal(20)))).containsExactly(8000, 0,
				2000);
	}

	@Test
	void givesTheFlatViewToACallerWhoseZoneHasNothingRoutable() {
		List<Member> service = List.of(member("a", 100, 0), member("b", 100, 30), member("b", 100, 70));
		assertThat(values(LocalityView.of(service, "a", LocalityPolicy.preferLocal(20)))).containsExactly(0, 30, 70);
		assertThat(values(LocalityView.of(service, "nowhere", LocalityPolicy.preferLocal(20)))).containsExactly(0, 30,
				70);
	}

	@Test
	void isTheFlatViewWithoutAPolicyOrWithoutACallerZone() {
		qt().forAll(SERVICES, CALLERS, POLICIES).checkAssert((service, caller, policy) -> {
			List<Weight> flat = service.stream().map(Member::effective).toList();
			assertThat(LocalityView.of(service, caller, null)).isEqualTo(flat);
			assertThat(LocalityView.of(service, null, policy)).isEqualTo(flat);
		});
	}

	@Test
	void sendsNoMoreThanTheCapAcrossZones() {
		qt().forAll(SERVICES, CALLERS, POLICIES).checkAssert((service, caller, policy) -> {
			List<Weight> view = LocalityView.of(service, caller, policy);
			if (sum(service, caller, true, Member::effective) > 0) {
				long remote = sum(service, view, caller, false);
				long all = sum(service, view, caller, true) + remote;
				assertThat(remote * 100).isLessThanOrEqualTo(all * policy.maxCrossZonePercent());
			}
		});
	}

	/**
	 * A healthy zone sends nothing away, and a weakened one no more than its deficit: the
	 * part of its traffic its routable instances cannot carry at 140% of their weight.
	 */
	@Test
	void putsTheLocalZoneFirst() {
		qt().forAll(SERVICES, CALLERS, POLICIES).checkAssert((service, caller, policy) -> {
			long routable = sum(service, caller, true, Member::effective);
			long nominal = service.stream()
				.filter(m -> caller.equals(m.zone()))
				.mapToLong(m -> Math.max(m.nominal().value(), m.effective().value()))
				.sum();
			if (routable == 0) {
				return;
			}
			List<Weight> view = LocalityView.of(service, caller, policy);
			long remote = sum(service, view, caller, false);
			long all = sum(service, view, caller, true) + remote;
			if (routable * 14 >= nominal * 10) {
				assertThat(remote).isZero();
				for (int i = 0; i < service.size(); i++) {
					if (caller.equals(service.get(i).zone())) {
						assertThat(view.get(i)).isEqualTo(service.get(i).effective());
					}
				}
			}
			else {
				// remote / all <= 1 - 1.4 * routable / nominal
				assertThat(remote * nominal * 10).isLessThanOrEqualTo(all * (nominal * 10 - routable * 14));
			}
		});
	}

	/** Weights in range, and none for an instance that the flat view gives none. */
	@Test
	void givesNothingToAnInstanceWithoutEffectiveWeight() {
		qt().forAll(SERVICES, CALLERS, POLICIES).checkAssert((service, caller, policy) -> {
			List<Weight> view = LocalityView.of(service, caller, policy);
			assertThat(view).hasSameSizeAs(service).allSatisfy(w -> assertThat(w.value()).isBetween(0, Weight.MAX));
			for (int i = 0; i < service.size(); i++) {
				if (service.get(i).effective().value() == 0) {
					assertThat(view.get(i)).isEqualTo(Weight.ZERO);
				}
			}
		});
	}

	@Test
	void isNeverAllZeroWhileAnythingIsRoutable() {
		qt().forAll(SERVICES, CALLERS, POLICIES).checkAssert((service, caller, policy) -> {
			boolean anyRoutable = service.stream().anyMatch(m -> m.effective().value() > 0);
			long total = LocalityView.of(service, caller, policy).stream().mapToLong(Weight::value).sum();
			assertThat(total > 0).isEqualTo(anyRoutable);
		});
	}

	/** A zone that loses routable weight never gets a larger local share for it. */
	@Test
	void aZoneLosingCapacityNeverKeepsMoreOfItsTraffic() {
		// One number picks the local instance (choice / 101) and the percent of its
		// effective weight it keeps (choice % 101).
		qt().forAll(SERVICES, CALLERS, POLICIES, integers().between(0, 101 * 12 - 1))
			.checkAssert((service, caller, policy, choice) -> {
				int kept = choice % 101;
				int pick = choice / 101;
				List<Integer> local = new ArrayList<>();
				for (int i = 0; i < service.size(); i++) {
					if (caller.equals(service.get(i).zone())) {
						local.add(i);
					}
				}
				if (local.isEmpty()) {
					return;
				}
				int index = local.get(pick % local.size());
				Member before = service.get(index);
				List<Member> weaker = new ArrayList<>(service);
				weaker.set(index, new Member(before.zone(), before.nominal(),
						Weight.of(before.effective().value() * kept / 100)));
				long[] was = shares(service, caller, policy);
				long[] now = shares(weaker, caller, policy);
				// now.local / now.all <= was.local / was.all
				assertThat(now[0] * was[1]).isLessThanOrEqualTo(was[0] * now[1]);
			});
	}

	/** {local weight, total weight}; a view of all zeros keeps nothing local. */
	private static long[] shares(List<Member> service, String caller, LocalityPolicy policy) {
		List<Weight> view = LocalityView.of(service, caller, policy);
		long local = sum(service, view, caller, true);
		long all = local + sum(service, view, caller, false);
		return all == 0 ? new long[] { 0, 1 } : new long[] { local, all };
	}

	private static long sum(List<Member> service, String caller, boolean local, Function<Member, Weight> weight) {
		return sum(service, service.stream().map(weight).toList(), caller, local);
	}

	private static long sum(List<Member> service, List<Weight> view, String caller, boolean local) {
		long total = 0;
		for (int i = 0; i < service.size(); i++) {
			if (Objects.equals(caller, service.get(i).zone()) == local) {
				total += view.get(i).value();
			}
		}
		return total;
	}

	private static Member member(String zone, int nominal, int effective) {
		return new Member(zone, Weight.of(nominal), Weight.of(effective));
	}

	private static List<Integer> values(List<Weight> weights) {
		return weights.stream().map(Weight::value).toList();
	}

}
