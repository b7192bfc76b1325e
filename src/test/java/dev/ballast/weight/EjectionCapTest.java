package dev.ballast.weight;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

class EjectionCapTest {

	private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

	private static EjectionCap.Member member(int i, int weight, boolean expired) {
		return new EjectionCap.Member("i" + i, weight, weight, weight > 0, T.plusSeconds(i), expired, false);
	}

	private static EjectionCap.Decision decide(List<EjectionCap.Member> members, int percent) {
		return EjectionCap.decide(members, members.stream().mapToLong(EjectionCap.Member::weight).sum(), percent);
	}

	@Test
	void tenInstancesWithFiveExpiredLoseAtMostTwoAtTwentyPercent() {
		List<EjectionCap.Member> members = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			members.add(member(i, 100, i < 5));
		}

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).containsExactlyInAnyOrder("i0", "i1");
		assertThat(decision.held()).containsExactlyInAnyOrder("i2", "i3", "i4");
		assertThat(decision.allowance()).isEqualTo(200);
		assertThat(decision.out()).isEqualTo(200);
	}

	@Test
	void ejectsOldestExpiryFirst() {
		List<EjectionCap.Member> members = List.of(
				new EjectionCap.Member("late", 100, 100, true, T.plusSeconds(50), true, false),
				new EjectionCap.Member("early", 100, 100, true, T.plusSeconds(10), true, false),
				new EjectionCap.Member("ok1", 100, 100, true, T.plusSeconds(90), false, false),
				new EjectionCap.Member("ok2", 100, 100, true, T.plusSeconds(90), false, false),
				new EjectionCap.Member("ok3", 100, 100, true, T.plusSeconds(90), false, false));

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).containsExactly("early");
		assertThat(decision.held()).containsExactly("late");
	}

	@Test
	void allowsOneEjectionWhileNothingElseIsOut() {
		EjectionCap.Decision decision = decide(List.of(member(0, 100, true), member(1, 100, false)), 0);

		assertThat(decision.eject()).containsExactly("i0");
	}

	/**
	 * A failing dominant instance leaves alone while nothing else is out (Envoy ejects at
	 * least one host): its capacity answers errors.
	 */
	@Test
	void ejectsADominantInstanceAloneWhileNothingElseIsOut() {
		EjectionCap.Decision decision = decide(
				List.of(member(0, 1000, true), member(1, 10, false), member(2, 10, false), member(3, 10, false)), 20);

		assertThat(decision.eject()).containsExactly("i0");
		assertThat(decision.out()).isEqualTo(1000);
	}

	/** Once anything is out, the floor is gone: the cap alone decides. */
	@Test
	void keepsADominantInstanceRoutableOnceAnythingElseIsOut() {
		List<EjectionCap.Member> members = List.of(member(0, 1000, true),
				new EjectionCap.Member("i1", 10, 5, true, T.plusSeconds(300), false, false), member(2, 10, false),
				member(3, 10, false));

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).isEmpty();
		assertThat(decision.held()).containsExactly("i0");
	}

	/**
	 * The finding 5: with one instance of four in maintenance (an operator's
	 * 25%), a failing check takes nothing more out.
	 */
	@Test
	void countsWhatOperatorsHoldOutAgainstTheCap() {
		List<EjectionCap.Member> members = List.of(
				new EjectionCap.Member("ga1", 100, 0, false, T.plusSeconds(300), false, false),
				new EjectionCap.Member("ga2", 100, 100, true, T, true, false), member(3, 100, false),
				member(4, 100, false));

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).isEmpty();
		assertThat(decision.held()).containsExactly("ga2");
		assertThat(decision.out()).isEqualTo(100);
	}

	/** A warm-up not yet done is out too, as the guard counts it. */
	@Test
	void countsWhatAWarmUpHasNotGivenBack() {
		List<EjectionCap.Member> members = new ArrayList<>();
		members.add(new EjectionCap.Member("warming", 100, 10, true, T.plusSeconds(300), false, false));
		for (int i = 1; i < 10; i++) {
			members.add(member(i, 100, i < 3));
		}

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).containsExactly("i1");
		assertThat(decision.held()).containsExactly("i2");
		assertThat(decision.out()).isEqualTo(190);
	}

	@Test
	void countsCapacityThatLeftWithinTheWindow() {
		List<EjectionCap.Member> members = List.of(member(0, 100, true), member(1, 100, false), member(2, 100, false));

		assertThat(EjectionCap.decide(members, 400, 20).eject()).as("100 of a base of 400 gone").isEmpty();
		assertThat(EjectionCap.decide(members, 300, 20).eject()).containsExactly("i0");
	}

	@Test
	void neverEjectsTheLastRoutableInstance() {
		assertThat(decide(List.of(member(0, 100, true)), 100).eject()).isEmpty();
		assertThat(decide(List.of(member(0, 100, true), member(1, 100, true)), 100).eject()).hasSize(1);
	}

	@Test
	void countsAlreadyEjectedWeightAgainstTheCap() {
		List<EjectionCap.Member> members = new ArrayList<>();
		members.add(new EjectionCap.Member("gone", 100, 0, false, T, true, true));
		for (int i = 1; i < 10; i++) {
			members.add(member(i, 100, i < 3));
		}

		EjectionCap.Decision decision = decide(members, 20);

		assertThat(decision.eject()).containsExactly("i1");
		assertThat(decision.held()).containsExactly("i2");
	}

	@Test
	void staysWithinTheCapExceptForOneInstanceAloneAndKeepsOneRoutable() {
		qt().forAll(services(), withEdges(integers().between(0, 100), 0, 1, 100), integers().between(0, 3000))
			.checkAssert(EjectionCapTest::staysWithinTheCapAndKeepsOneRoutable);
	}

	private static void staysWithinTheCapAndKeepsOneRoutable(List<EjectionCap.Member> members, int percent,
			int departed) {
		long capacity = members.stream().mapToLong(EjectionCap.Member::weight).sum();
		long base = capacity + departed;
		EjectionCap.Decision decision = EjectionCap.decide(members, base, percent);

		// The oracle: out is the base less what serves, before and after.
		long servingBefore = members.stream().mapToLong(EjectionCap.Member::serving).sum();
		long servingAfter = members.stream()
			.filter(m -> !decision.eject().contains(m.id()))
			.mapToLong(EjectionCap.Member::serving)
			.sum();
		long outBefore = base - servingBefore;
		long outAfter = base - servingAfter;
		boolean alone = outBefore == 0 && decision.eject().size() == 1;
		if (outAfter > outBefore && !alone) {
			assertThat(outAfter * 100).as("out after, in hundredths").isLessThanOrEqualTo(base * percent);
		}
		assertThat(decision.out()).isEqualTo(outAfter);
		long routableBefore = members.stream().filter(EjectionCap.Member::routable).count();
		long routableAfter = members.stream().filter(m -> m.routable() && !decision.eject().contains(m.id())).count();
		if (routableBefore >= 1) {
			assertThat(routableAfter).isGreaterThanOrEqualTo(1);
		}
		members.stream()
			.filter(m -> m.expired() && !m.ejected())
			.forEach(m -> assertThat(decision.eject().contains(m.id()) ^ decision.held().contains(m.id())).isTrue());
		members.stream()
			.filter(m -> !m.expired() || m.ejected())
			.forEach(m -> assertThat(decision.eject()).doesNotContain(m.id()));
	}

	private static Gen<List<EjectionCap.Member>> services() {
		Gen<Integer> weights = withEdges(integers().between(0, 10000), 0, 1, 10_000);
		Gen<Boolean> flags = booleans().all();
		Gen<EjectionCap.Member> member = weights.zip(flags, flags, integers().between(0, 1000),
				integers().between(0, 2), (weight, expired, ejected, at, held) -> {
					boolean out = (expired && ejected) || held == 0;
					// held 1: warming, serving a part of its weight
					int serving = out ? 0 : held == 1 ? weight / 3 : weight;
					return new EjectionCap.Member("x", weight, serving, weight > 0 && !(expired && ejected),
							T.plusSeconds(at), expired || ejected, expired && ejected);
				});
		return lists().of(member).ofSizeBetween(0, 30).map(list -> {
			List<EjectionCap.Member> named = new ArrayList<>();
			for (int i = 0; i < list.size(); i++) {
				EjectionCap.Member m = list.get(i);
				named.add(new EjectionCap.Member("i" + i, m.weight(), m.serving(), m.routable(), m.expiresAt(),
						m.expired(), m.ejected()));
			}
			return named;
		});
	}

}
