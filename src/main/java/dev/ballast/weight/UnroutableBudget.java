package dev.ballast.weight;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The guard on operator and registrant actions: at most {@code maxPercent} of a service's
 * nominal weight (the sum of its instances' {@link NominalWeight}s) may be unroutable
 * through drains, maintenance, weight edits to 0 and ejections, and no zone may lose more
 * than the same share of its own nominal weight. A traffic shift is a scope of its own
 * ({@link #shift}): the share of the moved load that the receiving group cannot carry
 * counts as unroutable. Checked in whole weight units, so rounding never lets an action
 * through that the percentage forbids.
 */
public final class UnroutableBudget {

	private UnroutableBudget() {
	}

	/**
	 * Whether taking {@code proposed} out of rotation keeps the service within its
	 * budget.
	 * @param members every instance of the service, with whether it is already unroutable
	 * @param proposed ids of the instances the action would make unroutable
	 * @param maxPercent the service's maxUnroutablePercent, 0 to 100
	 * @return empty when allowed, else the first limit it would break
	 */
	public static Optional<Breach> check(Collection<Member> members, Set<String> proposed, int maxPercent) {
		return check(scopes(members, proposed), maxPercent);
	}

	/**
	 * The first scope, in the order given, whose unroutable weight the action would raise
	 * past {@code maxPercent} of its nominal weight.
	 */
	public static Optional<Breach> check(List<Scope> scopes, int maxPercent) {
		if (maxPercent < 0 || maxPercent > 100) {
			throw new IllegalArgumentException("maxPercent must be from 0 to 100; got " + maxPercent);
		}
		return scopes.stream().map(scope -> scope.breach(maxPercent)).flatMap(Optional::stream).findFirst();
	}

	/** The service scope, then one per zone in name order. */
	public static List<Scope> scopes(Collection<Member> members, Set<String> proposed) {
		List<Scope> scopes = new ArrayList<>();
		scopes.add(scope("service", members, proposed));
		Map<String, List<Member>> zones = new TreeMap<>();
		members.stream()
			.filter(member -> member.zone() != null)
			.forEach(member -> zones.computeIfAbsent(member.zone(), zone -> new ArrayList<>()).add(member));
		zones.forEach((zone, inZone) -> scopes.add(scope("zone " + zone, inZone, proposed)));
		return scopes;
	}

	private static Scope scope(String name, Collection<Member> members, Set<String> proposed) {
		long nominal = 0;
		long before = 0;
		long after = 0;
		List<String> holders = new ArrayList<>();
		for (Member member : members) {
			nominal += member.weight();
			if (member.unroutable()) {
				before += member.weight();
				after += member.weight();
				holders.add(member.id());
			}
			else if (proposed.contains(member.id())) {
				after += member.weight();
			}
		}
		return new Scope(name, nominal, before, after, holders);
	}

	/**
	 * A traffic shift's scope. The {@code from} group's nominal weight is the load being
	 * moved; at {@code percent} the {@code to} group must carry that share of it with the
	 * nominal weight of its members that can take traffic. What it cannot carry counts as
	 * unroutable: going to 100% with a {@code to} group of half the capacity makes half
	 * the load unroutable.
	 * @param name the scope's name, e.g. {@code release 7}
	 * @param fromNominal the from group's nominal weight before the shift
	 * @param toCapable the nominal weight of the to group's members that can take traffic
	 * @param percentBefore the share shifted now, 0 to 100
	 * @param percentAfter the share the step would shift, 0 to 100
	 * @param holders the to group's members that cannot take traffic
	 */
	public static Scope shift(String name, long fromNominal, long toCapable, int percentBefore, int percentAfter,
			List<String> holders) {
		return new Scope(name, fromNominal, uncovered(fromNominal, toCapable, percentBefore),
				uncovered(fromNominal, toCapable, percentAfter), holders);
	}

	/** The moved load the to group cannot carry, rounded up against the action. */
	private static long uncovered(long fromNominal, long toCapable, int percent) {
		if (percent < 0 || percent > 100) {
			throw new IllegalArgumentException("percent must be from 0 to 100; got " + percent);
		}
		long moved = Math.ceilDiv(Math.multiplyExact(fromNominal, percent), 100);
		return Math.max(0, moved - toCapable);
	}

	private static BigDecimal percent(long part, long whole) {
		if (whole == 0) {
			return BigDecimal.ZERO;
		}
		return BigDecimal.valueOf(part * 100).divide(BigDecimal.valueOf(whole), 1, RoundingMode.HALF_UP);
	}

	/**
	 * An instance as the guard sees it.
	 *
	 * @param id its id
	 * @param zone its zone, or null
	 * @param weight its configured weight
	 * @param unroutable whether an operator action or an ejection already keeps it out
	 */
	public record Member(String id, String zone, int weight, boolean unroutable) {

		public Member {
			Objects.requireNonNull(id, "id");
			if (weight < 0) {
				throw new IllegalArgumentException("weight must not be negative; got " + weight);
			}
		}

	}

	/**
	 * One scope's figures before and after an action.
	 *
	 * @param name {@code service}, {@code zone <name>} or a shift's name
	 * @param nominal the scope's nominal weight
	 * @param before the weight unroutable now
	 * @param after the weight unroutable after the action
	 * @param holders the instances that hold the budget now
	 */
	public record Scope(String name, long nominal, long before, long after, List<String> holders) {

		public Scope {
			Objects.requireNonNull(name, "name");
			holders = List.copyOf(holders);
			if (nominal < 0 || before < 0 || after < 0) {
				throw new IllegalArgumentException("weights must not be negative; got nominal %d, before %d, after %d"
					.formatted(nominal, before, after));
			}
		}

		/** An action that takes nothing more away always passes, whatever stands now. */
		Optional<Breach> breach(int maxPercent) {
			if (after <= before || after * 100 <= nominal * maxPercent) {
				return Optional.empty();
			}
			return Optional.of(new Breach(name, maxPercent, percent(before, nominal), percent(after, nominal), nominal,
					before, after, holders));
		}

	}

	/**
	 * A limit an action would break.
	 *
	 * @param scope {@code service} or {@code zone <name>}
	 * @param limitPercent the limit
	 * @param currentPercent the share unroutable now
	 * @param resultingPercent the share unroutable after the action
	 * @param nominalWeight the scope's nominal weight
	 * @param unroutableWeight the weight unroutable now
	 * @param resultingWeight the weight that would be unroutable
	 * @param holders the instances that hold the budget now
	 */
	public record Breach(String scope, int limitPercent, BigDecimal currentPercent, BigDecimal resultingPercent,
			long nominalWeight, long unroutableWeight, long resultingWeight, List<String> holders) {
	}

}
