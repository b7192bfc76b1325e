package dev.ballast.security;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * A token to create.
 *
 * @param name what it is for
 * @param role {@code reader}, {@code registrant}, {@code operator} or {@code admin}
 * @param services for a registrant, which needs it: the services it may register in; for
 * a reader, optionally: the only services it may read; names or patterns with {@code *}
 * @param expiresAt when it stops working, or null for never
 * @param writesPerSecond its own write rate limit instead of the node's default
 */
@Schema(name = "TokenRequest")
record TokenRequest(
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "payments deploys") @NotNull(
				message = NAME) @Size(min = 1, max = 128, message = NAME) String name,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, allowableValues = {
				"reader", "registrant", "operator", "admin" },
				example = "registrant") @NotNull(message = ROLE) @Pattern(regexp = "reader|registrant|operator|admin",
						message = ROLE) String role,
		@Schema(description = "Service names or patterns, * for any characters: for role registrant, which needs "
				+ "it, the services it may register in; for role reader, optionally, the only services it may read",
				example = "[\"payments-*\"]") @Size(min = 1, max = 64, message = SERVICES) List<String> services,
		@Schema(description = "When the token stops working (RFC 3339); never if absent",
				example = "2027-06-30T00:00:00Z") Instant expiresAt,
		@Schema(description = "This token's own limit on writes per second, per node", minimum = "1",
				maximum = "1000000", example = "5000") @Min(value = 1,
						message = RATE) @Max(value = 1_000_000, message = RATE) Integer writesPerSecond){

	static final String NAME = "must be a string of 1 to 128 characters";

	static final String ROLE = "must be one of reader, registrant, operator, admin";

	static final String SERVICES = "must be an array of 1 to 64 service names or patterns";

	static final String RATE = "must be an integer from 1 to 1000000";

}
