package dev.ballast.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.weight.Share;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

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

	@Property
	void staysWithinTheCapExceptForTheOneAlwaysAllowedAndKeepsOneRoutable(
			@ForAll("services") List<EjectionCap.Member> members, @ForAll @IntRange(max = 100) int percent) {
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

	@Provide
	Arbitrary<List<EjectionCap.Member>> services() {
		Arbitrary<Integer> weights = Arbitraries.integers().between(0, 10000);
		Arbitrary<Boolean> flags = Arbitraries.of(true, false);
		Arbitrary<EjectionCap.Member> member = Combinators
			.combine(weights, flags, flags, Arbitraries.integers().between(0, 1000))
			.as((weight, expired, ejected, at) -> new EjectionCap.Member("x", weight,
					weight > 0 && !(expired && ejected), T.plusSeconds(at), expired || ejected, expired && ejected));
		return member.list().ofMinSize(0).ofMaxSize(30).map(list -> {
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
