package dev.ballast.weight;

import java.util.Objects;

/**
 * A service's locality policy: how a balancer in one zone shares its traffic with other
 * zones. A service without one gets the flat view (every instance at its effective
 * weight, whatever the caller's zone).
 *
 * @param mode how the view prefers the caller's zone
 * @param maxCrossZonePercent the most of a zone's traffic that may go to other zones, 0
 * to 100
 */
public record LocalityPolicy(Mode mode, int maxCrossZonePercent) {

	/** What a valid cap looks like, for refusals. */
	public static final String CAP_EXPECTED = "an integer from 0 to 100";

	/** How the view prefers the caller's zone. */
	public enum Mode {

		/**
		 * All traffic stays in the caller's zone while that zone is healthy enough; below
		 * that, only its deficit spills, capped ({@link LocalityView}).
		 */
		PREFER_LOCAL

	}

	public LocalityPolicy {
		Objects.requireNonNull(mode, "mode");
		if (maxCrossZonePercent < 0 || maxCrossZonePercent > 100) {
			throw new IllegalArgumentException(
					"maxCrossZonePercent must be " + CAP_EXPECTED + "; got " + maxCrossZonePercent);
		}
	}

	public static LocalityPolicy preferLocal(int maxCrossZonePercent) {
		return new LocalityPolicy(Mode.PREFER_LOCAL, maxCrossZonePercent);
	}

}
