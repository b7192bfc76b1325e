package dev.ballast.consul;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.StoredCheck;
import dev.ballast.registry.Tags;

/**
 * Ballast's instances in Consul's shapes, translated so that every Consul consumer routes
 * exactly the share Ballast means. Only routable instances (effective weight at least 1)
 * are listed as services, whatever {@code passing} says: a consumer that cannot see an
 * instance sends it nothing, while Spring Cloud LoadBalancer would read weight 0 as 1. A
 * listed instance carries its effective weight as {@code Weights.Passing} and
 * {@code Weights.Warning}, and as {@code Meta.weight}, the canonical decimal of a weight
 * of at least 1, because that string is the only weight Spring Cloud reads.
 *
 * @param settings the datacenter and node every instance is listed on
 * @param nodeAddress this node's address, as the address of that node
 */
record ConsulViews(ConsulSettings settings, String nodeAddress) {

	/**
	 * @param probed the checks Ballast runs, by instance id
	 * @param mayWrite whether the caller may write the service, and so read its checks'
	 * whole output ({@link StoredCheck#shownOutput})
	 */
	List<ConsulShapes.HealthEntry> health(InstanceList state, ConsulQuery query, Map<String, List<StoredCheck>> probed,
			boolean mayWrite) {
		return routable(state, query).stream()
			.map(instance -> new ConsulShapes.HealthEntry(node(state), service(instance),
					checks(instance, probed, mayWrite)))
			.toList();
	}

	List<ConsulShapes.CatalogEntry> catalog(InstanceList state, ConsulQuery query) {
		return routable(state, query).stream().map(instance -> {
			long index = instance.revision() + 1;
			return new ConsulShapes.CatalogEntry("", settings.node(), nodeAddress, settings.datacenter(), Map.of(),
					Map.of(), "", instance.id(), instance.service(), instance.tags(), instance.address(),
					weights(instance), meta(instance), instance.port().value(), false, index, index);
		}).toList();
	}

	/** A routable instance as Consul's agent lists its services. */
	ConsulShapes.AgentService agentService(InstanceView instance) {
		long index = instance.revision() + 1;
		return new ConsulShapes.AgentService(instance.id(), instance.service(), instance.tags(), meta(instance),
				instance.port().value(), instance.address(), weights(instance), false, settings.datacenter(), index,
				index);
	}

	/**
	 * Every instance's checks, routable or not: checks carry no address and no weight.
	 */
	List<ConsulShapes.Check> checks(InstanceList state, Map<String, List<StoredCheck>> probed, boolean mayWrite) {
		return state.instances().stream().flatMap(instance -> checks(instance, probed, mayWrite).stream()).toList();
	}

	/**
	 * An instance's checks: its lease as a TTL check, unless the checks Ballast runs keep
	 * it, and each of those with its last status and output as the caller may see it.
	 */
	private List<ConsulShapes.Check> checks(InstanceView instance, Map<String, List<StoredCheck>> probed,
			boolean mayWrite) {
		List<StoredCheck> own = probed.getOrDefault(instance.id(), List.of());
		List<ConsulShapes.Check> checks = new ArrayList<>();
		if (own.isEmpty() || !own.getFirst().keepsLease()) {
			checks.add(check(instance));
		}
		long index = instance.revision() + 1;
		for (StoredCheck check : own) {
			checks.add(new ConsulShapes.Check(settings.node(), check.consulId(),
					"Service '%s' %s check".formatted(instance.service(),
							check.definition().kind().name().toLowerCase(Locale.ROOT)),
					check.status().spelled(), "", check.shownOutput(mayWrite), instance.id(), instance.service(),
					instance.tags(), check.definition().kind().name().toLowerCase(Locale.ROOT), index, index));
		}
		return checks;
	}

	/**
	 * The instances a consumer may route to, among those carrying every tag asked for.
	 */
	private static List<InstanceView> routable(InstanceList state, ConsulQuery query) {
		return state.instances()
			.stream()
			.filter(InstanceView::routable)
			.filter(instance -> Tags.carryAll(instance.tags(), query.tags()))
			.toList();
	}

	private ConsulShapes.Node node(InstanceList state) {
		return new ConsulShapes.Node("", settings.node(), nodeAddress, settings.datacenter(), Map.of(), Map.of(), 1, 1);
	}

	private static ConsulShapes.Service service(InstanceView instance) {
		long index = instance.revision() + 1;
		return new ConsulShapes.Service(instance.id(), instance.service(), instance.tags(), instance.address(),
				meta(instance), instance.port().value(), weights(instance), false, index, index);
	}

	private static ConsulShapes.Weights weights(InstanceView instance) {
		return new ConsulShapes.Weights(instance.effectiveWeight(), instance.effectiveWeight());
	}

	/**
	 * The instance's metadata and, the one weight that travels as a string, its effective
	 * weight as {@code weight}: listed instances have at least 1, so it is never "0".
	 * (Ballast's metadata can hold no key {@code weight}, so nothing is overwritten.)
	 */
	private static Map<String, String> meta(InstanceView instance) {
		Map<String, String> meta = new LinkedHashMap<>(instance.metadata());
		meta.put("weight", Integer.toString(instance.effectiveWeight().value()));
		return meta;
	}

	private ConsulShapes.Check check(InstanceView instance) {
		long index = instance.revision() + 1;
		String output = "Ballast: mode %s, effective weight %d, %s, lease until %s%s".formatted(instance.mode(),
				instance.effectiveWeight().value(), instance.routable() ? "routable" : "not routable",
				instance.leaseExpiresAt(), instance.healthDetail() == null ? "" : ". " + instance.healthDetail());
		return new ConsulShapes.Check(settings.node(), "service:" + instance.id(),
				"Service '%s' check".formatted(instance.service()),
				instance.health() == Health.PASSING ? "passing" : "critical", "", output, instance.id(),
				instance.service(), instance.tags(), "ttl", index, index);
	}

}
