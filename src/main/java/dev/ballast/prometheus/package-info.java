/**
 * Prometheus service discovery: the routable instances of the registry as scrape targets
 * in the format of Prometheus' {@code http_sd_configs}, labelled with what Ballast knows
 * of each (service, id, zone, mode, weights, health, metadata). It only reads: the state
 * this node applied from the change log, as every other exit does (the watch module's
 * {@link dev.ballast.watch.BlockingQueries}), and the node's last known state during an
 * outage.
 */
@ApplicationModule(allowedDependencies = { "database", "instance", "registry", "watch", "web", "weight" })
package dev.ballast.prometheus;

import org.springframework.modulith.ApplicationModule;
