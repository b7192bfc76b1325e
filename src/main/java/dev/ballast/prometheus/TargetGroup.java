package dev.ballast.prometheus;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.ballast.registry.InstanceView;
import dev.ballast.registry.Port;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One entry of Prometheus' HTTP service discovery answer: the targets to scrape and the
 * labels they share. Ballast answers one group per instance, since every instance has
 * labels of its own.
 *
 * @param targets {@code host:port} of the instance (an IPv6 address in brackets)
 * @param labels the instance's {@code __meta_ballast_*} labels
 */
@Schema(name = "PrometheusTargetGroup", requiredProperties = { "targets", "labels" },
		description = "Scrape targets and their labels, as Prometheus' http_sd_configs reads them")
record TargetGroup(@Schema(example = "[\"10.0.0.5:8080\"]") List<String> targets, @Schema(example = """
		{"__meta_ballast_service":"payments","__meta_ballast_id":"10.0.0.5:8080","__meta_ballast_zone":"az-1",\
		"__meta_ballast_mode":"SERVING","__meta_ballast_weight":"100","__meta_ballast_effective_weight":"100",\
		"__meta_ballast_health":"PASSING","__meta_ballast_tags":",v2,canary,",\
		"__meta_ballast_metadata_version":"2.4.1"}""") Map<String, String> labels) {

	static final String PREFIX = "__meta_ballast_";

	/** What Prometheus' label names may not hold (its own sanitizing rule). */
	private static final Pattern NOT_IN_A_LABEL_NAME = Pattern.compile("[^a-zA-Z0-9_]");

	/**
	 * The group of one instance. Prometheus label values are strings, so the weights are
	 * written here as the canonical decimals of the typed values at the moment of the
	 * answer (ARCHITECTURE's second stated exception): for relabelling and dashboards,
	 * never read back by Ballast and never a weight source for a balancer.
	 */
	static TargetGroup of(InstanceView instance) {
		Map<String, String> labels = new TreeMap<>();
		labels.put(PREFIX + "service", instance.service());
		labels.put(PREFIX + "id", instance.id());
		if (instance.zone() != null) {
			labels.put(PREFIX + "zone", instance.zone());
		}
		labels.put(PREFIX + "mode", instance.mode().name());
		labels.put(PREFIX + "weight", Integer.toString(instance.weight().value()));
		labels.put(PREFIX + "effective_weight", Integer.toString(instance.effectiveWeight().value()));
		labels.put(PREFIX + "health", instance.health().name());
		// As Prometheus' Consul discovery writes __meta_consul_tags: the separator around
		// the list too (",," for none), so a relabelling regex such as .*,v2,.* need not
		// care where a tag sits.
		labels.put(PREFIX + "tags", "," + String.join(",", instance.tags()) + ",");
		// Keys that differ only in '.', '-' or '/' share a label name; the first in
		// sorted order keeps it, so the answer does not depend on storage order.
		new TreeMap<>(instance.metadata()).forEach((key, value) -> labels
			.putIfAbsent(PREFIX + "metadata_" + NOT_IN_A_LABEL_NAME.matcher(key).replaceAll("_"), value));
		return new TargetGroup(List.of(target(instance.address(), instance.port())), labels);
	}

	private static String target(String address, Port port) {
		return (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + port;
	}

}
