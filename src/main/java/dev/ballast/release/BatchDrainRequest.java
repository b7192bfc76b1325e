package dev.ballast.release;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * @param instances the instances to drain together
 * @param durationSeconds how long the ramps to 0 take
 * @param force drain even if the unroutable budget would break
 */
@Schema(name = "BatchDrainRequest")
record BatchDrainRequest(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED,
				example = "[\"10.0.0.5:8080\",\"10.0.0.6:8080\"]") @NotNull(
						message = INSTANCES) @Size(min = 1, max = 1000, message = INSTANCES) List<String> instances,
		@Schema(minimum = "0", maximum = "" + DrainRequest.MAX_SECONDS, example = "30") @Min(value = 0,
				message = DrainRequest.DURATION) @Max(value = DrainRequest.MAX_SECONDS,
						message = DrainRequest.DURATION) Integer durationSeconds,
		@Schema(example = "false") Boolean force) {

	static final String INSTANCES = "must be a list of 1 to 1000 instance ids";

}
