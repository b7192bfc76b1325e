package dev.ballast.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.weight.Share;
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
		return new EjectionCap.Member("i" + i, weight, weight > 0, T.plusSeconds(i), expired, false);
	}

	@Test
	void tenInstancesWithFiveExpiredLoseAtMostTwoAtTwentyPercent() {
		List<EjectionCap.Member> members = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			members.add(member(i, 100, i < 5));
		}

		EjectionCap.Decision decision = EjectionCap.decide(members, 20);

		assertThat(decision.eject()).containsExactlyInAnyOrder("i0", "i1");
		assertThat(decision.held()).containsExactlyInAnyOrder("i2", "i3", "i4");
		assertThat(decision.allowance()).isEqualTo(200);
		assertThat(decision.ejectedWeight()).isEqualTo(200);
	}

	@Test
	void ejectsOldestExpiryFirst() {
		List<EjectionCap.Member> members = List.of(
				new EjectionCap.Member("late", 100, true, T.plusSeconds(50), true, false),
				new EjectionCap.Member("early", 100, true, T.plusSeconds(10), true, false),
				new EjectionCap.Member("ok1", 100, true, T.plusSeconds(90), false, false),
				new EjectionCap.Member("ok2", 100, true, T.plusSeconds(90), false, false),
				new EjectionCap.Member("ok3", 100, true, T.plusSeconds(90), false, false));

		EjectionCap.Decision decision = EjectionCap.decide(members, 20);

		assertThat(decision.eject()).containsExactly("early");
		assertThat(decision.held()).containsExactly("late");
	}

	@Test
	void alwaysAllowsOneEjectionWithTwoRoutableInstances() {
		EjectionCap.Decision decision = EjectionCap.decide(List.of(member(0, 100, true), member(1, 100, false)), 0);

		assertThat(decision.eject()).containsExactly("i0");
	}

	@Test
	void neverEjectsTheLastRoutableInstance() {
		assertThat(EjectionCap.decide(List.of(member(0, 100, true)), 100).eject()).isEmpty();
		assertThat(EjectionCap.decide(List.of(member(0, 100, true), member(1, 100, true)), 100).eject()).hasSize(1);
	}

	@Test
	void countsAlreadyEjectedWeightAgainstTheCap() {
		List<EjectionCap.Member> members = new ArrayList<>();
		members.add(new EjectionCap.Member("gone", 100, false, T, true, true));
		for (int i = 1; i < 10; i++) {
			members.add(member(i, 100, i < 3));
		}

		EjectionCap.Decision decision = EjectionCap.decide(members, 20);

		assertThat(decision.eject()).containsExactly("i1");
		assertThat(decision.held()).containsExactly("i2");
	}

	@Test
	void staysWithinTheCapExceptForTheOneAlwaysAllowedAndKeepsOneRoutable() {
		qt().forAll(services(), withEdges(integers().between(0, 100), 0, 1, 100))
			.checkAssert(EjectionCapTest::staysWithinTheCapAndKeepsOneRoutable);
	}

	private static void staysWithinTheCapAndKeepsOneRoutable(List<EjectionCap.Member> members, int percent) {
		EjectionCap.Decision decision = EjectionCap.decide(members, percent);

		long nominal = members.stream().mapToLong(EjectionCap.Member::weight).sum();
		long ejectedWeight = members.stream()
			.filter(m -> m.ejected() || decision.eject().contains(m.id()))
			.mapToLong(EjectionCap.Member::weight)
			.sum();
		long routableBefore = members.stream().filter(EjectionCap.Member::routable).count();
		long routableAfter = members.stream().filter(m -> m.routable() && !decision.eject().contains(m.id())).count();
		boolean noneEjectedBefore = members.stream().noneMatch(EjectionCap.Member::ejected);
		if (!(noneEjectedBefore && decision.eject().size() == 1)) {
			assertThat(ejectedWeight).isLessThanOrEqualTo(Math.max(Share.of(nominal, percent),
					members.stream().filter(EjectionCap.Member::ejected).mapToLong(EjectionCap.Member::weight).sum()));
		}
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
				(weight, expired, ejected, at) -> new EjectionCap.Member("x", weight,
						weight > 0 && !(expired && ejected), T.plusSeconds(at), expired || ejected,
						expired && ejected));
		return lists().of(member).ofSizeBetween(0, 30).map(list -> {
			List<EjectionCap.Member> named = new ArrayList<>();
			for (int i = 0; i < list.size(); i++) {
				EjectionCap.Member m = list.get(i);
				named.add(new EjectionCap.Member("i" + i, m.weight(), m.routable(), m.expiresAt(), m.expired(),
						m.ejected()));
			}
			return named;
		});
	}

}
