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
 * The guard on operator actions: at most {@code maxPercent} of a service's nominal weight
 * (the sum of the configured weights of its instances) may be unroutable through drains,
 * maintenance, releases and ejections, and no zone may lose more than the same share of
 * its own nominal weight. Checked in whole weight units, so rounding never lets an action
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
		if (maxPercent < 0 || maxPercent > 100) {
			throw new IllegalArgumentException("maxPercent must be from 0 to 100; got " + maxPercent);
		}
		Optional<Breach> service = checkScope("service", members, proposed, maxPercent);
		if (service.isPresent()) {
			return service;
		}
		Map<String, List<Member>> zones = new TreeMap<>();
		members.stream()
			.filter(member -> member.zone() != null)
			.forEach(member -> zones.computeIfAbsent(member.zone(), zone -> new ArrayList<>()).add(member));
		for (Map.Entry<String, List<Member>> zone : zones.entrySet()) {
			Optional<Breach> breach = checkScope("zone " + zone.getKey(), zone.getValue(), proposed, maxPercent);
			if (breach.isPresent()) {
				return breach;
			}
		}
		return Optional.empty();
	}

	private static Optional<Breach> checkScope(String scope, Collection<Member> members, Set<String> proposed,
			int maxPercent) {
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
		if (after == before || after * 100 <= nominal * maxPercent) {
			return Optional.empty();
		}
		return Optional.of(new Breach(scope, maxPercent, percent(before, nominal), percent(after, nominal), nominal,
				before, after, List.copyOf(holders)));
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
