/**
 * Prometheus service discovery: the routable instances of the registry as scrape targets
 * in the format of Prometheus' {@code http_sd_configs}, labelled with what Ballast knows
 * of each (service, id, zone, mode, weights, health, metadata). It only reads, through
 * the instance module's queries.
 */
package dev.ballast.prometheus;
