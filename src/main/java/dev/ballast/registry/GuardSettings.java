package dev.ballast.registry;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.guard.*}.
 *
 * @param capacityWindow how long capacity that left a scope (a weight lowered, an
 * instance moved out of a zone or deregistered) still counts in the guard's base
 * ({@link dev.ballast.weight.CapacityPeak}): long enough for a replacement to come up, so
 * that what left cannot be taken away again meanwhile
 */
@ConfigurationProperties("ballast.guard")
record GuardSettings(@DefaultValue("10m") Duration capacityWindow) {

	GuardSettings {
		if (capacityWindow.isNegative()) {
			throw new IllegalArgumentException(
					"ballast.guard.capacity-window must not be negative; got " + capacityWindow);
		}
	}

}
