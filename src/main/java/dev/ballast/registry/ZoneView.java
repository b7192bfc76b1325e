package dev.ballast.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import dev.ballast.web.BadParameterException;
import dev.ballast.weight.LocalityView;
import dev.ballast.weight.ReceivedValue;
import dev.ballast.weight.Weight;
import tools.jackson.databind.node.StringNode;

/**
 * A service's instances as a balancer in one zone must weigh them ({@link LocalityView}):
 * each instance's {@code effectiveWeight} and {@code routable} are the zone's view, the
 * rest is as stored. Each instance counts with its configured weight as the capacity it
 * stands for, which drains, maintenance and expiry leave in place, so that their loss
 * shows as the zone's deficit. An instance an operator holds at weight 0 counts with 0:
 * its capacity was taken away by hand, within the guard's budget, rather than lost.
 */
public final class ZoneView {

	/** What a zone name must match, in a registration and in a read's {@code ?zone=}. */
	public static final String ZONE_PATTERN = "^[A-Za-z0-9._-]{1,63}$";

	private static final Pattern ZONE = Pattern.compile(ZONE_PATTERN);

	private ZoneView() {
	}

	/**
	 * The {@code ?zone=} of a read: {@code null} when absent (the flat view).
	 * @throws BadParameterException naming {@code zone} for anything a registration could
	 * not carry as its zone
	 */
	public static String parameter(String zone) {
		if (zone != null && !named(zone)) {
			throw new BadParameterException("zone", "zone must be a zone name matching %s; got %s"
				.formatted(ZONE_PATTERN, ReceivedValue.describe(StringNode.valueOf(zone))));
		}
		return zone;
	}

	/** Whether {@code zone} is a zone name a registration could carry. */
	public static boolean named(String zone) {
		return ZONE.matcher(zone).matches();
	}

	/** {@code list} as {@code zone} sees it; the list itself without a zone or policy. */
	public static InstanceList of(InstanceList list, String zone) {
		if (zone == null || list.locality() == null) {
			return list;
		}
		List<InstanceView> instances = list.instances();
		List<Weight> weights = LocalityView.of(instances.stream()
			.map(i -> new LocalityView.Member(i.zone(), i.weight(), i.effectiveWeight()))
			.toList(), zone, list.locality().policy());
		List<InstanceView> seen = new ArrayList<>(instances.size());
		for (int k = 0; k < instances.size(); k++) {
			seen.add(weighted(instances.get(k), weights.get(k)));
		}
		return list.with(seen);
	}

	private static InstanceView weighted(InstanceView i, Weight weight) {
		return new InstanceView(i.service(), i.id(), i.address(), i.port(), i.zone(), i.weight(), weight,
				weight.value() > 0, i.mode(), i.modeReason(), i.modeUntil(), i.unconfirmedSubscribers(), i.health(),
				i.criticalReason(), i.healthDetail(), i.metadata(), i.tags(), i.leaseTtlSeconds(), i.leaseExpiresAt(),
				i.revision());
	}

}
