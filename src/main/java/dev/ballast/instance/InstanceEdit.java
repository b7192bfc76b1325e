package dev.ballast.instance;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.ballast.registry.Tags;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.Expectation;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The fields of an instance an operator may edit with a JSON merge patch. {@code null}
 * removes the zone, a metadata key or the tags; the weight cannot be removed.
 */
@Schema(name = "InstanceEdit", description = "JSON merge patch (RFC 7386) of an instance's editable fields")
record InstanceEdit(
		@Schema(implementation = Weight.class, example = "50") @Expectation(RegistrationRequest.WEIGHT) JsonNode weight,
		@Schema(example = "az-2") @Pattern(regexp = ZoneView.ZONE_PATTERN,
				message = RegistrationRequest.ZONE) String zone,
		@Schema(example = "{\"version\":\"2.4.2\",\"canary\":null}") Map<String, String> metadata,
		@ArraySchema(schema = @Schema(minLength = 1, maxLength = Tags.MAX_LENGTH), maxItems = Tags.MAX_TAGS,
				arraySchema = @Schema(description = "Replaces every tag (a merge patch replaces a list whole); "
						+ "null or [] removes them", example = "[\"v2\"]")) List<String> tags,
		@Schema(description = "With a weight: when the registry puts the previous weight back by itself (RFC 3339)",
				example = "2026-11-30T12:00:00Z") Instant until) {
}
