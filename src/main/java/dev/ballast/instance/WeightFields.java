package dev.ballast.instance;

import java.util.List;

import dev.ballast.database.Synchronizations;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightReader;
import dev.ballast.weight.WeightReading;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Component;

/**
 * Reads a weight field of a write under its service's policy. Every conversion that the
 * NORMALIZE policy makes is logged with the service and instance, counted in
 * {@code ballast_weight_normalizations_total{service}} and reported back to the caller.
 */
@Component
class WeightFields {

	private static final Logger log = LoggerFactory.getLogger(WeightFields.class);

	private final MeterRegistry meters;

	WeightFields(MeterRegistry meters) {
		this.meters = meters;
	}

	/**
	 * @param value the JSON value received
	 * @param pointer where it sits in the request body, e.g. {@code /weight}
	 * @param settings the service the write is for
	 * @param subject the instance (or service setting) being written, for the log line
	 * @param normalized collects the pointers of converted fields
	 * @throws InvalidRequestException when the policy refuses the value
	 */
	Weight read(JsonNode value, String pointer, ServiceSettings settings, String subject, List<String> normalized) {
		String field = pointer.substring(pointer.lastIndexOf('/') + 1);
		return switch (WeightReader.read(field, value, settings.weightPolicy())) {
			case WeightReading.Exact exact -> exact.weight();
			case WeightReading.Normalized converted -> {
				// Counted and logged once the write commits: a grouped write may run
				// twice.
				Synchronizations.afterCommit(() -> {
					log.info("Normalized {} of {} in service {} from {} to the integer {}", pointer, subject,
							settings.name(), converted.received(), converted.weight().value());
					counter(settings.name()).increment();
				});
				normalized.add(pointer);
				yield converted.weight();
			}
			case WeightReading.Refused refused -> throw InvalidRequestException.of(pointer, refused.detail());
		};
	}

	private Counter counter(ServiceName service) {
		return Counter.builder("ballast.weight.normalizations")
			.description("Weights converted to integers under the NORMALIZE policy")
			.tag("service", service.value())
			.register(meters);
	}

}
