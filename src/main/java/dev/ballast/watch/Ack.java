package dev.ballast.watch;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * A subscriber's acknowledgement.
 *
 * @param revision the revision whose state it has applied
 */
@Schema(name = "Ack")
record Ack(@Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "0",
		example = "42") @NotNull(message = REVISION) @Min(value = 0, message = REVISION) Long revision) {

	static final String REVISION = "must be a non-negative integer";

}
