package dev.ballast.client;

import java.time.Instant;

/**
 * The registry's answer to a heartbeat.
 *
 * @param mode what an operator or a release asked of the instance, such as
 * {@code SERVING} or {@code DRAINING}
 * @param effectiveWeight the weight balancers now use for it, 0 to 10000
 * @param leaseExpiresAt when its lease runs out unless renewed again
 */
public record Heartbeat(String mode, int effectiveWeight, Instant leaseExpiresAt) {

	static Heartbeat fromJson(Object json) {
		JsonFields fields = JsonFields.of(json);
		return new Heartbeat(fields.string("mode"), fields.integer("effectiveWeight", 0, WatchedInstance.MAX_WEIGHT),
				fields.instant("leaseExpiresAt"));
	}

}
