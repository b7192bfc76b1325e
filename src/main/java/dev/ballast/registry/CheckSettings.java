package dev.ballast.registry;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.checks.*}: the health checks the registry runs.
 *
 * @param allowedNetworks networks a check may probe besides its own instance (CIDR)
 * @param deniedNetworks networks (CIDR, optionally with one port) no check may probe,
 * whatever else allows it
 * @param anyPort whether a check of its instance's own host may use another port than the
 * instance's (a management port)
 * @param maxConcurrent probes one node runs at once; the rest wait their turn, late
 * @param maxConcurrentPerService of those, the most one service's checks may hold at
 * once, so that one registrant's stuck targets leave room for the others' checks
 * @param membershipInterval how often a node says it is alive and learns who else is
 * @param handover how long a node waits before probing a check it has just been given, so
 * that the node that had it has stopped (it stops within one membership interval of
 * seeing the newcomer, or when it cannot reach the database)
 * @param scheduled whether this node runs probes at all (tests drive them)
 */
@ConfigurationProperties("ballast.checks")
public record CheckSettings(@DefaultValue("") List<String> allowedNetworks,
		@DefaultValue("") List<String> deniedNetworks, @DefaultValue("false") boolean anyPort,
		@DefaultValue("512") int maxConcurrent, @DefaultValue("64") int maxConcurrentPerService,
		@DefaultValue("1s") Duration membershipInterval, @DefaultValue("2s") Duration handover,
		@DefaultValue("true") boolean scheduled) {

	public CheckSettings {
		allowedNetworks = networks(allowedNetworks);
		deniedNetworks = networks(deniedNetworks);
		if (maxConcurrent < 1) {
			throw new IllegalArgumentException("ballast.checks.max-concurrent must be at least 1");
		}
		if (maxConcurrentPerService < 1) {
			throw new IllegalArgumentException("ballast.checks.max-concurrent-per-service must be at least 1");
		}
	}

	private static List<String> networks(List<String> configured) {
		return configured == null ? List.of()
				: configured.stream().map(String::strip).filter(network -> !network.isEmpty()).toList();
	}

	/**
	 * A node that has not said it is alive for this long is gone: three membership
	 * intervals.
	 */
	public Duration liveness() {
		return membershipInterval.multipliedBy(3);
	}

}
