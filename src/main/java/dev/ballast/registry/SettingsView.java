package dev.ballast.registry;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;
import io.swagger.v3.oas.annotations.media.Schema;

/** A service's settings as clients receive them and as the change log records them. */
@Schema(name = "ServiceSettings")
public record SettingsView(@Schema(example = "payments") String name, WeightPolicy weightPolicy, Weight defaultWeight,
		LeaseTtl leaseTtlSeconds, @Schema(description = MAX_UNROUTABLE, example = "25%") String maxUnroutable,
		@Schema(minimum = "0", maximum = "100", example = "25",
				description = "The percent a traffic shift is held to; maxUnroutable's value when that is a "
						+ "percent. Setting it alone sets maxUnroutable to that percent") int maxUnroutablePercent,
		@Schema(minimum = "0", maximum = "100", example = "20") int maxEjectionPercent,
		@Schema(description = LOCALITY) @JsonInclude(JsonInclude.Include.NON_NULL) LocalitySetting locality,
		@Schema(minimum = "0", example = "42") long revision) {

	public static final String LOCALITY = "The locality policy; absent when it is off and every caller gets the flat view";

	public static final String MAX_UNROUTABLE = "The guard's budget: how much of the service's, and of each zone's, "
			+ "capacity the actions of operators and registrants may take out of rotation, as a count of instances "
			+ "(\"1\") or a percent of the capacity (\"25%\"), always as a string here. A percent also admits one "
			+ "instance at a time while nothing else in the scope is out";

	public static final String MAX_UNROUTABLE_SENT = "The guard's budget: how much of the service's, and of each zone's, "
			+ "capacity the actions of operators and registrants may take out of rotation: a count of instances as "
			+ "a JSON integer (1; the string \"1\" is read too) or a percent of the capacity as a string (\"25%\"). "
			+ "A percent also admits one instance at a time while nothing else in the scope is out";

	public static SettingsView of(ServiceSettings settings) {
		return new SettingsView(settings.name().value(), settings.weightPolicy(), settings.defaultWeight(),
				settings.leaseTtl(), settings.maxUnroutable().toString(), settings.maxUnroutablePercent(),
				settings.maxEjectionPercent(), LocalitySetting.of(settings.locality()), settings.revision());
	}

}
