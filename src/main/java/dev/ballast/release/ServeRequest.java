package dev.ballast.release;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * @param warmupSeconds how long the ramp from 1 to the configured weight takes; 0 serves
 * at once
 */
@Schema(name = "ServeRequest")
record ServeRequest(@Schema(minimum = "0", maximum = "" + DrainRequest.MAX_SECONDS, example = "60",
		description = "Warm-up duration (default 30)") @Min(value = 0, message = DrainRequest.DURATION) @Max(
				value = DrainRequest.MAX_SECONDS, message = DrainRequest.DURATION) Integer warmupSeconds) {
}
