package dev.ballast.xds;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The ADS server's metrics: {@code ballast_xds_streams} (open now),
 * {@code ballast_xds_responses_total{type}} and {@code ballast_xds_nacks_total{type}}
 * (responses a client refused; it keeps its last good version).
 */
final class XdsMeters {

	/** The streams the server holds open; none while it is off. */
	private volatile Set<?> open = Set.of();

	private final Map<ResourceType, Counter> responses = new EnumMap<>(ResourceType.class);

	private final Map<ResourceType, Counter> nacks = new EnumMap<>(ResourceType.class);

	XdsMeters(MeterRegistry meters) {
		Gauge.builder("ballast.xds.streams", this, xds -> xds.open.size())
			.description("Open ADS streams on this node")
			.register(meters);
		for (ResourceType type : ResourceType.values()) {
			String name = type.name().toLowerCase(java.util.Locale.ROOT);
			responses.put(type,
					Counter.builder("ballast.xds.responses")
						.description("ADS responses sent")
						.tag("type", name)
						.register(meters));
			nacks.put(type,
					Counter.builder("ballast.xds.nacks")
						.description("ADS responses a client refused (NACK); it keeps its last good version")
						.tag("type", name)
						.register(meters));
		}
	}

	/** Counts {@code streams} as the open ones from now on. */
	void streams(Set<?> streams) {
		open = streams;
	}

	void responded(ResourceType type) {
		responses.get(type).increment();
	}

	void nacked(ResourceType type) {
		nacks.get(type).increment();
	}

}
