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
 * @param nominalWeight sum of nominal weights, the base of the guard's budget
 * @param unroutableWeight nominal weight held out of rotation, as the guard counts it
 * @param maxUnroutablePercent the guard's limit
 * @param weightPolicy STRICT or NORMALIZE
 * @param releaseUnderWay id of the active or paused release, if any
 */
@Schema(name = "ServiceSummary")
record ServiceSummary(@Schema(example = "payments") String name, @Schema(minimum = "0") int instances,
		@Schema(minimum = "0") int routable, @Schema(minimum = "0") long totalEffectiveWeight,
		@Schema(minimum = "0") long revision,
		@Schema(minimum = "0",
				description = "Sum of the instances' nominal weights; the guard's budget "
						+ "(maxUnroutablePercent) is a share of it") long nominalWeight,
		@Schema(minimum = "0", description = "Nominal weight of the instances held out of rotation (draining, "
				+ "drained, in maintenance, held at weight 0 by hand, or ejected): the budget in use") long unroutableWeight,
		@Schema(minimum = "0", maximum = "100", example = "25") int maxUnroutablePercent, WeightPolicy weightPolicy,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(
				description = "Id of the release (traffic shift) under " + "way, active or paused; absent when none",
				example = "7") Long releaseUnderWay) {
}
