package dev.ballast.instance;

import java.time.Instant;
import java.util.Map;

import dev.ballast.web.Expectation;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The fields of an instance an operator may edit with a JSON merge patch. {@code null}
 * removes the zone or a metadata key; the weight cannot be removed.
 */
@Schema(name = "InstanceEdit", description = "JSON merge patch (RFC 7386) of an instance's editable fields")
record InstanceEdit(
		@Schema(implementation = Weight.class, example = "50") @Expectation(RegistrationRequest.WEIGHT) JsonNode weight,
		@Schema(example = "az-2") @Pattern(regexp = RegistrationRequest.ZONE_PATTERN,
				message = RegistrationRequest.ZONE) String zone,
		@Schema(example = "{\"version\":\"2.4.2\",\"canary\":null}") Map<String, String> metadata,
		@Schema(description = "With a weight: when the registry puts the previous weight back by itself (RFC 3339)",
				example = "2026-11-30T12:00:00Z") Instant until) {
}
