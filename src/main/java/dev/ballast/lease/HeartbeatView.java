package dev.ballast.lease;

import java.time.Instant;

import dev.ballast.instance.Mode;
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
}
