package dev.ballast.registry;

import dev.ballast.weight.LocalityPolicy;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * A service's locality policy as operators send it and clients receive it; absent is the
 * flat view.
 *
 * @param mode how the view prefers the caller's zone
 * @param maxCrossZonePercent the most of a zone's traffic that may go to other zones
 */
@Schema(name = "Locality",
		description = "Each balancer asking with ?zone= gets its zone's view: all its traffic stays local while "
				+ "the zone's routable weight is at least 1/1.4 of its nominal weight; below that only the deficit "
				+ "spills to zones with spare capacity, and never more than maxCrossZonePercent. See docs/locality.md")
public record LocalitySetting(@Schema(example = "PREFER_LOCAL") @NotNull(message = MODE) LocalityPolicy.Mode mode,
		@Schema(minimum = "0", maximum = "100", example = "20",
				description = "The most of a zone's traffic that may go to other zones, in percent") @NotNull(
						message = ServiceSettings.PERCENT) @Min(value = 0, message = ServiceSettings.PERCENT) @Max(
								value = 100, message = ServiceSettings.PERCENT) Integer maxCrossZonePercent) {

	static final String MODE = "must be PREFER_LOCAL";

	/** What a locality setting looks like, for refusals. */
	public static final String EXPECTED = "must be null (the flat view) or an object such as "
			+ "{\"mode\": \"PREFER_LOCAL\", \"maxCrossZonePercent\": 20} (0 to 100)";

	public static LocalitySetting of(LocalityPolicy policy) {
		return policy == null ? null : new LocalitySetting(policy.mode(), policy.maxCrossZonePercent());
	}

	/** The policy this setting stands for. */
	public LocalityPolicy policy() {
		return new LocalityPolicy(mode, maxCrossZonePercent);
	}

}
