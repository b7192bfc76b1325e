package dev.ballast.probe;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.database.NodeFacts;
import dev.ballast.registry.Checks;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.StoredCheck;
import dev.ballast.web.BadParameterException;
import dev.ballast.web.InvalidRequestException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The nodes that share the database: who is alive, which checks each probes (the owner
 * every node computes from the same list of live nodes, {@link ProbeOwners}), and how far
 * each has written the heartbeats it absorbed (both facts of the node table,
 * {@link NodeFacts}).
 */
@RestController
@Tag(name = "Nodes", description = "The registry nodes that share the database")
class Nodes {

	/** The checks listed per node; the count says how many there are. */
	static final int SHOWN_CHECKS = 100;

	private final ProberMembership membership;

	private final Checks checks;

	private final NodeFacts facts;

	Nodes(ProberMembership membership, Checks checks, NodeFacts facts) {
		this.membership = membership;
		this.checks = checks;
		this.facts = facts;
	}

	@GetMapping("/v1/nodes")
	@Operation(operationId = "listNodes", summary = "List the registry nodes", description = """
			Every node seen in the last hour: whether it is alive (it said so within three membership intervals), \
			the checks it probes (each check is probed by one live node, the same owner every node computes), and \
			its lease-writer position, the moment through which it has written the heartbeats it absorbed. Sorted \
			by id.""")
	@ApiResponse(responseCode = "200", description = "The nodes")
	List<NodeView> list(@RequestParam(required = false) @Parameter(
			description = "Only the checks of this service are counted and listed",
			example = "payments") String service) {
		Collection<ServiceName> services = service == null ? checks.fingerprints().keySet() : List.of(name(service));
		List<NodeFacts.Prober> members = membership.members();
		List<String> live = members.stream().filter(NodeFacts.Prober::alive).map(NodeFacts.Prober::node).toList();
		Map<String, List<StoredCheck>> probed = new TreeMap<>();
		if (!live.isEmpty()) {
			for (StoredCheck check : checks.of(services)) {
				probed.computeIfAbsent(ProbeOwners.owner(check.key(), live), node -> new ArrayList<>()).add(check);
			}
		}
		Map<String, Instant> positions = facts.positions();
		Map<String, NodeFacts.Prober> byNode = new TreeMap<>();
		members.forEach(member -> byNode.put(member.node(), member));
		positions.keySet().forEach(node -> byNode.putIfAbsent(node, new NodeFacts.Prober(node, null, false)));
		return byNode.values().stream().map(member -> {
			List<StoredCheck> own = probed.getOrDefault(member.node(), List.of());
			return new NodeView(member.node(), member.node().equals(membership.node()), member.alive(), member.seenAt(),
					positions.get(member.node()), own.size(),
					own.stream()
						.sorted(Comparator.comparing(StoredCheck::key))
						.limit(SHOWN_CHECKS)
						.map(check -> new NodeView.ProbedCheck(check.service().value(), check.instanceId().value(),
								check.consulId(), check.definition().kind().name(), check.status().spelled()))
						.toList());
		}).toList();
	}

	private static ServiceName name(String service) {
		try {
			return ServiceName.of(service);
		}
		catch (InvalidRequestException ex) {
			throw new BadParameterException("service", ex.getMessage());
		}
	}

}
