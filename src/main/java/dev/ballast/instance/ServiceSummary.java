package dev.ballast.instance;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ballast.weight.WeightPolicy;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One line of the service list: enough to see each service's state at a glance (the
 * console's overview draws it), without a call per service.
 *
 * @param name the service
 * @param instances registered instances
 * @param routable instances with an effective weight above 0
 * @param totalEffectiveWeight sum of effective weights
 * @param revision the service's revision
 * @param nominalWeight the guard's base in the service scope
 * @param unroutableWeight what the guard counts as unroutable in it
 * @param maxUnroutable the guard's limit
 * @param maxUnroutablePercent the percent traffic shifts are held to
 * @param weightPolicy STRICT or NORMALIZE
 * @param releaseUnderWay id of the active or paused release, if any
 */
@Schema(name = "ServiceSummary")
record ServiceSummary(@Schema(example = "payments") String name, @Schema(minimum = "0") int instances,
		@Schema(minimum = "0") int routable, @Schema(minimum = "0") long totalEffectiveWeight,
		@Schema(minimum = "0") long revision,
		@Schema(minimum = "0",
				description = "The guard's base: the sum of the instances' nominal weights, or the capacity "
						+ "within the capacity window when that was higher") long nominalWeight,
		@Schema(minimum = "0",
				description = "The base less the nominal weight in rotation: what is held out "
						+ "and capacity that left within the window; the budget in use") long unroutableWeight,
		@Schema(description = SettingsView.MAX_UNROUTABLE, example = "25%") String maxUnroutable,
		@Schema(minimum = "0", maximum = "100", example = "25") int maxUnroutablePercent, WeightPolicy weightPolicy,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(
				description = "Id of the release (traffic shift) under " + "way, active or paused; absent when none",
				example = "7") Long releaseUnderWay) {
}
