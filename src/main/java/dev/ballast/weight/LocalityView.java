package dev.ballast.weight;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The weights a balancer in one zone must use under a {@link LocalityPolicy}: local
 * first, and at most the policy's cap of the caller's traffic to other zones, whatever
 * fails. A failover without a cap once filled the link between two zones and broke
 * database replication across it; overloaded local instances are the lesser harm.
 *
 * <p>
 * The rule, with the overprovisioning factor of {@value #OVERPROVISIONING_PERCENT}% (as
 * Envoy's): a zone's routable instances can carry that much more than their weight, so a
 * zone keeps all its traffic while its routable weight is at least its nominal weight
 * divided by 1.4, and its instances keep their effective weights. Below that the zone
 * spills only its deficit ({@code 1 - 1.4 * routable / nominal} of its traffic), and no
 * more than the other zones' spare capacity ({@code 1.4 * routable - nominal} each) nor
 * the cap; the rest stays local. The spilled share goes to the other zones in proportion
 * to their spare capacity, and within a zone in proportion to effective weight. When no
 * zone has spare capacity nothing spills. A spilling view is written in {@value #UNITS}
 * units (basis points of the caller's traffic), so that the cross-zone share is exact and
 * never rounds above the cap.
 *
 * <p>
 * A zone's nominal weight is the sum of its instances' nominal weights (an instance
 * carrying more than its nominal weight counts with what it carries): the capacity it
 * stands for, which a drain, an expiry or a failing check does not lower.
 *
 * <p>
 * Instances without a zone form a zone of their own: where they run is unknown, so
 * traffic to them counts as crossing zones and is capped. Counting them as local to every
 * zone would let an uncapped share cross a real link unseen.
 *
 * <p>
 * Two callers get the flat view (every instance at its effective weight): one that names
 * no zone, and one whose zone has nothing routable. For the latter no weights could keep
 * the cap short of refusing every request, while other zones could serve them.
 */
public final class LocalityView {

	/**
	 * How much more than its weight a zone's routable instances can carry, in percent.
	 */
	public static final int OVERPROVISIONING_PERCENT = 140;

	/** The total weight of a view that spills: basis points of the caller's traffic. */
	public static final int UNITS = 10_000;

	private LocalityView() {
	}

	/**
	 * An instance as the view sees it.
	 *
	 * @param zone its zone, or {@code null} when it has none
	 * @param nominal the capacity it stands for ({@link NominalWeight})
	 * @param effective the weight the flat view gives it
	 */
	public record Member(String zone, Weight nominal, Weight effective) {

		public Member {
			Objects.requireNonNull(nominal, "nominal");
			Objects.requireNonNull(effective, "effective");
		}

		private String scope() {
			return zone == null ? "" : zone;
		}

		private long capacity() {
			return Math.max(nominal.value(), effective.value());
		}

	}

	/**
	 * @param members the service's instances
	 * @param callerZone the balancer's zone, or {@code null} for none
	 * @param policy the service's policy, or {@code null} for none
	 * @return each member's weight for that caller, in the same order
	 */
	public static List<Weight> of(List<Member> members, String callerZone, LocalityPolicy policy) {
		List<Weight> flat = members.stream().map(Member::effective).toList();
		if (policy == null || callerZone == null) {
			return flat;
		}
		Map<String, Zone> zones = new LinkedHashMap<>();
		members.forEach(member -> zones.computeIfAbsent(member.scope(), z -> new Zone()).add(member));
		Zone local = zones.getOrDefault(callerZone, new Zone());
		if (local.routable == 0) {
			return flat;
		}
		long spare = zones.entrySet()
			.stream()
			.filter(entry -> !entry.getKey().equals(callerZone))
			.mapToLong(entry -> entry.getValue().spare())
			.sum();
		long cross = Math.min(Math.min(local.deficitUnits(), unitsOf(spare, local.nominal)),
				Share.of(UNITS, policy.maxCrossZonePercent()));
		if (cross <= 0) {
			return members.stream().map(m -> m.scope().equals(callerZone) ? m.effective() : Weight.ZERO).toList();
		}
		return spill(members, callerZone, zones, cross);
	}

	/**
	 * The caller's zone keeps {@code UNITS - cross} units among its instances; the other
	 * zones share {@code cross} by spare capacity.
	 */
	private static List<Weight> spill(List<Member> members, String callerZone, Map<String, Zone> zones, long cross) {
		Map<String, Long> parts = new LinkedHashMap<>();
		parts.put(callerZone, UNITS - cross);
		List<String> takers = zones.keySet().stream().filter(z -> !z.equals(callerZone)).toList();
		List<Weight> taken = Apportion.of(cross, takers.stream().map(z -> zones.get(z).spare()).toList());
		for (int i = 0; i < takers.size(); i++) {
			parts.put(takers.get(i), (long) taken.get(i).value());
		}
		Map<String, List<Integer>> positions = new LinkedHashMap<>();
		for (int i = 0; i < members.size(); i++) {
			positions.computeIfAbsent(members.get(i).scope(), z -> new ArrayList<>()).add(i);
		}
		Weight[] weights = new Weight[members.size()];
		positions.forEach((zone, indices) -> {
			List<Weight> split = Apportion.of(parts.get(zone),
					indices.stream().map(i -> members.get(i).effective().value()).toList());
			for (int k = 0; k < indices.size(); k++) {
				weights[indices.get(k)] = split.get(k);
			}
		});
		return List.of(weights);
	}

	/** {@code amount / nominal} of the caller's traffic in units, rounded down. */
	private static long unitsOf(long amountTenths, long nominal) {
		return Math.multiplyExact(amountTenths, UNITS) / Math.multiplyExact(nominal, 10);
	}

	/** The sums of one zone, in weight units. */
	private static final class Zone {

		private long nominal;

		private long routable;

		void add(Member member) {
			nominal += member.capacity();
			routable += member.effective().value();
		}

		/**
		 * What its routable instances can carry beyond its own traffic, in tenths of
		 * weight units; 0 for a zone that has none to spare.
		 */
		long spare() {
			return Math.max(0, overprovisioned() - nominal * 10);
		}

		/** The share of its traffic it cannot carry, in units; 0 or less when healthy. */
		long deficitUnits() {
			return unitsOf(nominal * 10 - overprovisioned(), nominal);
		}

		private long overprovisioned() {
			return routable * OVERPROVISIONING_PERCENT / 10;
		}

	}

}
