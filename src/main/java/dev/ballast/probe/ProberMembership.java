package dev.ballast.probe;

import java.time.Duration;
import java.util.List;

import dev.ballast.database.NodeFacts;
import dev.ballast.database.ThisNode;
import dev.ballast.registry.CheckSettings;

import org.springframework.stereotype.Component;

/**
 * The nodes that share the probing: each says it probes ({@link NodeFacts}) every
 * membership interval, and counts as gone when it has not for three.
 */
@Component
class ProberMembership {

	/** How long a node that stopped saying it probes is still listed. */
	private static final Duration FORGOTTEN = Duration.ofHours(1);

	private final NodeFacts nodes;

	private final CheckSettings settings;

	/** This process: a restarted node is a new member, whose checks start afresh. */
	private final String node;

	ProberMembership(NodeFacts nodes, CheckSettings settings, ThisNode node) {
		this.nodes = nodes;
		this.settings = settings;
		this.node = node.id();
	}

	String node() {
		return node;
	}

	/**
	 * Says this node is alive, forgets members long gone, and reads who is alive now.
	 * @return the live nodes, this one included
	 */
	List<String> beat() {
		nodes.probes(node);
		nodes.forgetProbersSilentFor(FORGOTTEN);
		return nodes.probing(settings.liveness());
	}

	/**
	 * Every node seen within the last hour (the rest are forgotten), with when it was
	 * last seen, by the database's clock, and whether that is within the liveness.
	 */
	List<NodeFacts.Prober> members() {
		return nodes.probers(settings.liveness());
	}

	/** A node that stops cleanly hands its checks over at once. */
	void leave() {
		nodes.stopsProbing(node);
	}

}
