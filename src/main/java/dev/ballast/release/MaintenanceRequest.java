package dev.ballast.release;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/**
 * @param reason why, shown on the instance
 * @param until when the registry ends the maintenance by itself, or null
 * @param force even if the unroutable budget would break
 */
@Schema(name = "MaintenanceRequest")
record MaintenanceRequest(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "kernel upgrade") @NotNull(
				message = REASON) @NotBlank(message = REASON) @Size(max = 512, message = REASON) String reason,
		@Schema(description = "When maintenance ends by itself (RFC 3339)",
				example = "2026-11-30T12:00:00Z") Instant until,
		@Schema(example = "false") Boolean force) {

	static final String REASON = "must be a non-empty string of at most 512 characters";

}
