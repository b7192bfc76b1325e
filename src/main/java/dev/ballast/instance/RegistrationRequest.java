package dev.ballast.instance;

import java.util.List;
import java.util.Map;

import dev.ballast.registry.Address;
import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.Port;
import dev.ballast.registry.Tags;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.Expectation;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import tools.jackson.databind.JsonNode;

/**
 * The body of {@code PUT /v1/services/{service}/instances/{id}}. The weight is kept as
 * the JSON value received, because only the service's weight policy can say whether it is
 * acceptable.
 */
@Schema(name = "Registration", description = "Registers or replaces an instance")
record RegistrationRequest(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "10.0.0.5") @NotNull(message = ADDRESS) @Size(
				min = 1, max = Address.MAX_LENGTH,
				message = ADDRESS) @Pattern(regexp = Address.PATTERN, message = ADDRESS) String address,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED) @NotNull(message = PORT) Port port,
		@Schema(implementation = Weight.class,
				description = "Defaults to the service's defaultWeight. Under the STRICT policy only a JSON integer is accepted.") @Expectation(WEIGHT) JsonNode weight,
		@Schema(example = "az-1") @Pattern(regexp = ZoneView.ZONE_PATTERN, message = ZONE) String zone,
		@Schema(example = "{\"version\":\"2.4.1\"}") Map<String, String> metadata,
		@ArraySchema(schema = @Schema(minLength = 1, maxLength = Tags.MAX_LENGTH), maxItems = Tags.MAX_TAGS,
				arraySchema = @Schema(
						description = "Labels, kept in this order (default none): at most 32, each 1 to "
								+ "128 printable characters; a tag sent twice is kept once. Only labels: a tag such as "
								+ "weight=0 is text and never sets the weight",
						example = "[\"v2\",\"traefik.enable=true\"]")) List<String> tags,
		@Schema(description = "Defaults to the service's leaseTtlSeconds; with checks and no leaseTtlSeconds, the "
				+ "checks alone decide the instance's health and keep its lease") LeaseTtl leaseTtlSeconds,
		@ArraySchema(schema = @Schema(implementation = CheckRequest.class), maxItems = CheckDefinition.MAX_PER_INSTANCE,
				arraySchema = @Schema(description = "Health checks the registry runs against the instance (default "
						+ "none); a failing check makes it CRITICAL within the service's ejection cap")) List<CheckRequest> checks,
		@Schema(description = "Pass the unroutable budget when this registration sets a routable instance's weight "
				+ "to 0 (audited)") Boolean force) {

	static final String WEIGHT = "must be an integer from 0 to 10000";

	static final String ADDRESS = "must be " + Address.EXPECTED;

	static final String PORT = "must be " + Port.EXPECTED;

	static final String ZONE = "must match " + ZoneView.ZONE_PATTERN;

}
