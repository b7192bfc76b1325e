package dev.ballast.release;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * @param durationSeconds how long the ramp to 0 takes; 0 drains at once
 * @param force drain even if the unroutable budget would break (counted and logged)
 */
@Schema(name = "DrainRequest")
record DrainRequest(
		@Schema(minimum = "0", maximum = "" + DrainRequest.MAX_SECONDS, example = "30",
				description = "Ramp duration (default 10)") @Min(value = 0, message = DURATION) @Max(
						value = DrainRequest.MAX_SECONDS, message = DURATION) Integer durationSeconds,
		@Schema(description = "Override the unroutable budget; audited and counted", example = "false") Boolean force) {

	/** The longest ramp (drain or warm-up) a request may ask for: an hour. */
	static final int MAX_SECONDS = 3600;

	static final String DURATION = "must be an integer from 0 to " + MAX_SECONDS;

}
