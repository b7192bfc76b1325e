package dev.ballast.instance;

import dev.ballast.weight.WeightPolicy;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.Schema;

/** A service's settings as clients receive them and as the change log records them. */
@Schema(name = "ServiceSettings")
public record SettingsView(@Schema(example = "payments") String name, WeightPolicy weightPolicy, Weight defaultWeight,
		@Schema(minimum = "5", maximum = "300", example = "30") int leaseTtlSeconds,
		@Schema(minimum = "0", maximum = "100", example = "25") int maxUnroutablePercent,
		@Schema(minimum = "0", maximum = "100", example = "20") int maxEjectionPercent,
		@Schema(minimum = "0", example = "42") long revision) {

	static SettingsView of(ServiceSettings settings) {
		return new SettingsView(settings.name().value(), settings.weightPolicy(), settings.defaultWeight(),
				settings.leaseTtlSeconds(), settings.maxUnroutablePercent(), settings.maxEjectionPercent(),
				settings.revision());
	}

}
