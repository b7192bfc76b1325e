package dev.ballast.lease;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import dev.ballast.registry.Mode;
import dev.ballast.weight.Weight;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The answer to a heartbeat, so an instance learns at once when it is being drained.
 *
 * @param mode the instance's mode
 * @param effectiveWeight the weight balancers use for it
 * @param leaseExpiresAt when its lease runs out unless renewed again
 */
@Schema(name = "Heartbeat")
record HeartbeatView(Mode mode, Weight effectiveWeight, Instant leaseExpiresAt) {

	/**
	 * The JSON the application's mapper writes for this view, written by hand for the
	 * heartbeat's short way, where the mapper's generator setup cost more than the rest
	 * of the answer. Nothing in it needs escaping: a mode's name, an int and an ISO-8601
	 * instant.
	 */
	byte[] json() {
		return ("{\"mode\":\"" + mode.name() + "\",\"effectiveWeight\":" + effectiveWeight.value()
				+ ",\"leaseExpiresAt\":\"" + leaseExpiresAt + "\"}")
			.getBytes(StandardCharsets.US_ASCII);
	}

}
