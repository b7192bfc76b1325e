package dev.ballast.weight;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Self-preservation: health ejections (a lease run out, a failing check or report) may
 * leave at most {@code maxEjectionPercent} of a service's base out of rotation at once.
 * "Out" is counted as the guard counts it ({@link UnroutableBudget}): the base less what
 * serves, whatever took it (an operator's drain or maintenance, an earlier ejection, a
 * warm-up not yet done, capacity that left within the window), the way a
 * PodDisruptionBudget counts unhealthy pods as disrupted. So a registrant cannot add an
 * ejection on top of what operators took, and an operator cannot add a drain on top of
 * ejections (the guard counts them). When more instances fail, for example because the
 * registry's own network failed, the excess stay routable and CRITICAL so balancers keep
 * a chance to reach them; they are ejected, oldest expiry first, as the cap allows.
 * <p>
 * The floor: while nothing at all is out, one instance may be ejected whatever it weighs,
 * as Envoy's outlier detection ejects at least one host whatever its
 * {@code max_ejection_percent}. It is not the guard's weighted floor
 * ({@link MaxUnroutable#averageShare}) on purpose: an operator's action takes away
 * capacity that works, so a dominant instance needs a raised budget, while a failing
 * instance's capacity answers errors, and holding the heaviest dead instance of
 * 300/200/100 routable would send half the traffic to it. One at a time stays the rule:
 * once anything is out, the cap alone decides. Ejection never takes the last routable
 * instance.
 */
public final class EjectionCap {

	private EjectionCap() {
	}

	/**
	 * @param id the instance
	 * @param weight its nominal weight, the capacity it stands for
	 * @param serving what of it serves now ({@link UnroutableBudget.Member#serving})
	 * @param routable whether it takes traffic now
	 * @param expiresAt when its lease ran (or runs) out, or when its failure was reported
	 * @param expired whether its lease ran out or it was reported critical
	 * @param ejected whether an ejection already made it unroutable
	 */
	public record Member(String id, int weight, int serving, boolean routable, Instant expiresAt, boolean expired,
			boolean ejected) {

		public Member {
			Objects.requireNonNull(id, "id");
			Objects.requireNonNull(expiresAt, "expiresAt");
			if (serving < 0 || serving > weight) {
				throw new IllegalArgumentException(
						"serving must be from 0 to the weight %d; got %d".formatted(weight, serving));
			}
		}

	}

	/**
	 * @param eject ids to make unroutable now
	 * @param held ids whose lease ran out but that the cap keeps routable
	 * @param allowance the most capacity that may be out after an ejection
	 * @param out the capacity out of rotation after this decision
	 */
	public record Decision(Set<String> eject, Set<String> held, long allowance, long out) {
	}

	/**
	 * @param members the service's instances
	 * @param base the service's base: its capacity, or its live peak above it
	 * ({@link UnroutableBudget})
	 * @param maxEjectionPercent the cap
	 */
	public static Decision decide(List<Member> members, long base, int maxEjectionPercent) {
		long capacity = members.stream().mapToLong(Member::weight).sum();
		long scopeBase = Math.max(base, capacity);
		long allowance = Share.of(scopeBase, maxEjectionPercent);
		long out = scopeBase - members.stream().mapToLong(Member::serving).sum();
		long routable = members.stream().filter(Member::routable).count();
		List<Member> candidates = new ArrayList<>(members.stream().filter(m -> m.expired() && !m.ejected()).toList());
		candidates.sort(Comparator.comparing(Member::expiresAt).thenComparing(Member::id));
		List<String> eject = new ArrayList<>();
		List<String> held = new ArrayList<>();
		for (Member candidate : candidates) {
			boolean lastRoutable = candidate.routable() && routable <= 1;
			boolean fits = out + candidate.serving() <= allowance;
			boolean alone = out == 0;
			if (!lastRoutable && (fits || alone)) {
				eject.add(candidate.id());
				out += candidate.serving();
				routable -= candidate.routable() ? 1 : 0;
			}
			else {
				held.add(candidate.id());
			}
		}
		return new Decision(Set.copyOf(eject), Set.copyOf(held), allowance, out);
	}

}
