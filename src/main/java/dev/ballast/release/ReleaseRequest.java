package dev.ballast.release;

import java.util.List;
import java.util.Map;

import dev.ballast.web.InvalidRequestException;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * @param from metadata selector of the instances that give up traffic
 * @param to metadata selector of the instances that take it
 * @param steps the percentages of the total the {@code to} group gets, increasing, ending
 * at 100
 * @param stepIntervalSeconds seconds between automatic steps; 0 or absent advances only
 * on request
 * @param force start even if the first step breaks the unroutable budget (audited)
 */
@Schema(name = "ReleaseRequest")
record ReleaseRequest(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "{\"version\":\"1.0\"}") @NotNull(
				message = SELECTOR) @Size(min = 1, max = 16, message = SELECTOR) Map<String, String> from,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "{\"version\":\"1.1\"}") @NotNull(
				message = SELECTOR) @Size(min = 1, max = 16, message = SELECTOR) Map<String, String> to,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "[10,50,100]") @NotNull(message = STEPS) @Size(
				min = 1, max = 20, message = STEPS) List<Integer> steps,
		@Schema(minimum = "0", maximum = "86400", example = "0") @Min(value = 0, message = INTERVAL) @Max(value = 86400,
				message = INTERVAL) Integer stepIntervalSeconds,
		@Schema(description = "Pass the unroutable budget if the first step would break it; audited and counted",
				example = "false") Boolean force) {

	static final String SELECTOR = "must be an object of 1 to 16 metadata key/value pairs";

	static final String STEPS = "must be 1 to 20 increasing percentages from 1 to 100, ending at 100";

	static final String INTERVAL = "must be an integer from 0 to 86400";

	/** Steps increase and end at 100; the first that does not is named by its pointer. */
	void checkSteps() {
		int previous = 0;
		for (int i = 0; i < steps.size(); i++) {
			Integer step = steps.get(i);
			if (step == null || step <= previous || step > 100) {
				throw InvalidRequestException.of("/steps/" + i, "steps " + STEPS + "; got " + steps);
			}
			previous = step;
		}
		if (previous != 100) {
			throw InvalidRequestException.of("/steps", "steps " + STEPS + "; got " + steps);
		}
	}

}
