package dev.ballast.instance;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.ServiceCounts;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.SettingsView;
import dev.ballast.weight.Share;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;
import io.swagger.v3.oas.annotations.media.Schema;

/** A service's settings with the counts of its instances. */
@Schema(name = "Service")
record ServiceView(@Schema(example = "payments") String name, WeightPolicy weightPolicy, Weight defaultWeight,
		LeaseTtl leaseTtlSeconds,
		@Schema(description = SettingsView.MAX_UNROUTABLE, example = "25%") String maxUnroutable,
		@Schema(minimum = "0", maximum = "100", example = "25") int maxUnroutablePercent,
		@Schema(minimum = "0", maximum = "100", example = "20") int maxEjectionPercent,
		@Schema(description = SettingsView.LOCALITY) @JsonInclude(JsonInclude.Include.NON_NULL) LocalitySetting locality,
		@Schema(minimum = "0", example = "42") long revision,
		@Schema(description = "Registered instances", minimum = "0") int instances,
		@Schema(description = "Instances with effectiveWeight > 0", minimum = "0") int routable,
		@Schema(description = "Instances whose lease is current", minimum = "0") int passing,
		@Schema(description = "Instances whose lease expired", minimum = "0") int critical,
		@Schema(description = "The guard's base: the sum of the instances' nominal weights (the configured weight, "
				+ "or the last positive weight of an instance held at 0 by hand), or the service's capacity within the "
				+ "capacity window when that was higher (a weight lowered, an instance deregistered). "
				+ "maxUnroutable is counted against it", minimum = "0") long nominalWeight,
		@Schema(description = "Sum of effective weights", minimum = "0") long totalEffectiveWeight,
		@Schema(description = "The base less what serves: what is held out (draining, drained, in maintenance, "
				+ "held at weight 0 by hand, or ejected), what a warm-up has not yet given back, and capacity that "
				+ "left within the window; the budget in use, of operators and of health ejections alike",
				minimum = "0") long unroutableWeight,
		EjectionView ejection) {

	static ServiceView of(ServiceSettings settings, ServiceCounts counts) {
		return new ServiceView(settings.name().value(), settings.weightPolicy(), settings.defaultWeight(),
				settings.leaseTtl(), settings.maxUnroutable().toString(), settings.maxUnroutablePercent(),
				settings.maxEjectionPercent(), LocalitySetting.of(settings.locality()), settings.revision(),
				counts.instances(), counts.routable(), counts.passing(), counts.critical(), counts.guardBase(),
				counts.totalEffectiveWeight(), counts.guardUnroutable(), EjectionView.of(settings, counts));
	}

	/**
	 * The ejection budget (self-preservation): how much more health ejections (a lease
	 * run out, a failing check or report) may take out of rotation, counted with what is
	 * already out for any reason ({@link dev.ballast.weight.EjectionCap}).
	 *
	 * @param allowanceWeight maxEjectionPercent of the base, rounded down: the most that
	 * may be out after an ejection
	 * @param ejectedWeight nominal weight of the instances health ejected
	 * @param remainingWeight what an ejection may still take: the allowance less what is
	 * out (unroutableWeight)
	 * @param ejected instances health made unroutable
	 * @param held critical instances kept routable by the cap
	 */
	@Schema(name = "EjectionBudget")
	public record EjectionView(@Schema(minimum = "0") long allowanceWeight, @Schema(minimum = "0") long ejectedWeight,
			@Schema(minimum = "0") long remainingWeight, @Schema(minimum = "0") int ejected,
			@Schema(minimum = "0") int held) {

		static EjectionView of(ServiceSettings settings, ServiceCounts counts) {
			long allowance = Share.of(counts.guardBase(), settings.maxEjectionPercent());
			return new EjectionView(allowance, counts.ejectedWeight(),
					Math.max(0, allowance - counts.guardUnroutable()), counts.ejected(), counts.held());
		}

	}

}
