package dev.ballast.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

import dev.ballast.weight.Share;

/**
 * Self-preservation: lease expiry may make at most {@code maxEjectionPercent} of a
 * service's nominal weight (the sum of configured weights) unroutable at once. When more
 * leases run out, for example because the registry's own network failed, the excess stay
 * routable and CRITICAL so balancers keep a chance to reach them; they are ejected,
 * oldest expiry first, as the cap allows. One instance may always be ejected while the
 * service has two or more routable instances, and expiry alone never ejects the last
 * routable one.
 */
final class EjectionCap {

	private EjectionCap() {
	}

	/**
	 * @param id the instance
	 * @param weight its configured weight
	 * @param routable whether it takes traffic now
	 * @param expiresAt when its lease ran (or runs) out
	 * @param expired whether its lease ran out
	 * @param ejected whether expiry already made it unroutable
	 */
	record Member(String id, int weight, boolean routable, Instant expiresAt, boolean expired, boolean ejected) {
	}

	/**
	 * @param eject ids to make unroutable now
	 * @param held ids whose lease ran out but that the cap keeps routable
	 * @param allowance the most weight expiry may take away
	 * @param ejectedWeight the weight expiry has taken away after this decision
	 */
	record Decision(Set<String> eject, Set<String> held, long allowance, long ejectedWeight) {
	}

	static Decision decide(List<Member> members, int maxEjectionPercent) {
		long nominal = members.stream().mapToLong(Member::weight).sum();
		long allowance = Share.of(nominal, maxEjectionPercent);
		long ejectedWeight = members.stream().filter(Member::ejected).mapToLong(Member::weight).sum();
		long ejectedCount = members.stream().filter(Member::ejected).count();
		long routable = members.stream().filter(Member::routable).count();
		List<Member> candidates = new ArrayList<>(members.stream().filter(m -> m.expired() && !m.ejected()).toList());
		candidates.sort(Comparator.comparing(Member::expiresAt).thenComparing(Member::id));
		List<String> eject = new ArrayList<>();
		List<String> held = new ArrayList<>();
		for (Member candidate : candidates) {
			boolean lastRoutable = candidate.routable() && routable <= 1;
			boolean fits = ejectedWeight + candidate.weight() <= allowance;
			boolean firstOfMany = ejectedCount == 0 && routable >= 2;
			if (!lastRoutable && (fits || firstOfMany)) {
				eject.add(candidate.id());
				ejectedWeight += candidate.weight();
				ejectedCount++;
				routable -= candidate.routable() ? 1 : 0;
			}
			else {
				held.add(candidate.id());
			}
		}
		return new Decision(Set.copyOf(eject), Set.copyOf(held), allowance, ejectedWeight);
	}

}
