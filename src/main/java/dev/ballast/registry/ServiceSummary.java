package dev.ballast.registry;

import java.util.List;

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
 * @param passing instances whose lease is current
 * @param critical instances whose lease expired
 * @param held expired instances the ejection cap keeps routable
 * @param ejected instances lease expiry made unroutable
 * @param draining instances in mode DRAINING
 * @param drained instances in mode DRAINED
 * @param maintenance instances in mode MAINTENANCE
 * @param totalEffectiveWeight sum of effective weights
 * @param revision the service's revision
 * @param nominalWeight the guard's base in the service scope
 * @param unroutableWeight what the guard counts as unroutable in it
 * @param maxUnroutable the guard's limit
 * @param maxUnroutablePercent the percent traffic shifts are held to
 * @param weightPolicy STRICT or NORMALIZE
 * @param tags every tag its instances carry, once each, sorted by code point
 * @param releaseUnderWay id of the active or paused release, if any
 */
@Schema(name = "ServiceSummary")
public record ServiceSummary(@Schema(example = "payments") String name, @Schema(minimum = "0") int instances,
		@Schema(minimum = "0") int routable,
		@Schema(description = "Instances whose lease is current", minimum = "0") int passing,
		@Schema(description = "Instances whose lease expired", minimum = "0") int critical,
		@Schema(description = "Expired instances the ejection cap keeps routable (self-preservation)",
				minimum = "0") int held,
		@Schema(description = "Instances lease expiry made unroutable", minimum = "0") int ejected,
		@Schema(description = "Instances in mode DRAINING", minimum = "0") int draining,
		@Schema(description = "Instances in mode DRAINED", minimum = "0") int drained,
		@Schema(description = "Instances in mode MAINTENANCE", minimum = "0") int maintenance,
		@Schema(minimum = "0") long totalEffectiveWeight, @Schema(minimum = "0") long revision,
		@Schema(minimum = "0",
				description = "The guard's base: the sum of the instances' nominal weights, or the capacity "
						+ "within the capacity window when that was higher") long nominalWeight,
		@Schema(minimum = "0",
				description = "The base less the nominal weight in rotation: what is held out "
						+ "and capacity that left within the window; the budget in use") long unroutableWeight,
		@Schema(description = SettingsView.MAX_UNROUTABLE, example = "25%") String maxUnroutable,
		@Schema(minimum = "0", maximum = "100", example = "25") int maxUnroutablePercent, WeightPolicy weightPolicy,
		@Schema(description = "Every tag the service's instances carry, once each, sorted by code point",
				example = "[\"v2\"]") List<String> tags,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(
				description = "Id of the release (traffic shift) under " + "way, active or paused; absent when none",
				example = "7") Long releaseUnderWay) {
}
