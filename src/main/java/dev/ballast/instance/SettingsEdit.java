package dev.ballast.instance;

import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.SettingsView;
import dev.ballast.web.Expectation;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/** The settings of a service an operator may edit with a JSON merge patch. */
@Schema(name = "ServiceSettingsEdit", description = "JSON merge patch (RFC 7386) of a service's settings")
record SettingsEdit(
		@Schema(example = "NORMALIZE",
				requiredMode = Schema.RequiredMode.NOT_REQUIRED) @NotNull(message = POLICY) WeightPolicy weightPolicy,
		@Schema(implementation = Weight.class,
				example = "100") @Expectation(RegistrationRequest.WEIGHT) JsonNode defaultWeight,
		@Schema(requiredMode = Schema.RequiredMode.NOT_REQUIRED) @NotNull(message = TTL) LeaseTtl leaseTtlSeconds,
		@Schema(description = SettingsView.MAX_UNROUTABLE_SENT, oneOf = {
				Integer.class, String.class }, example = "1", requiredMode = Schema.RequiredMode.NOT_REQUIRED) @NotNull(
						message = LIMIT) @Expectation(LIMIT) JsonNode maxUnroutable,
		@Schema(minimum = "0", maximum = "100", example = "25",
				requiredMode = Schema.RequiredMode.NOT_REQUIRED) @NotNull(message = ServiceSettings.PERCENT) @Min(
						value = 0, message = ServiceSettings.PERCENT) @Max(value = 100,
								message = ServiceSettings.PERCENT) Integer maxUnroutablePercent,
		@Schema(minimum = "0", maximum = "100", example = "20",
				requiredMode = Schema.RequiredMode.NOT_REQUIRED) @NotNull(message = ServiceSettings.PERCENT) @Min(
						value = 0, message = ServiceSettings.PERCENT) @Max(value = 100,
								message = ServiceSettings.PERCENT) Integer maxEjectionPercent,
		@Schema(requiredMode = Schema.RequiredMode.NOT_REQUIRED,
				description = "The locality policy; null turns it off (the flat view)") @Valid @Expectation(LocalitySetting.EXPECTED) LocalitySetting locality){

	static final String POLICY = "must be one of STRICT, NORMALIZE";

	static final String TTL = "must be " + LeaseTtl.EXPECTED;

	static final String LIMIT = "must be " + MaxUnroutable.EXPECTED;

}
