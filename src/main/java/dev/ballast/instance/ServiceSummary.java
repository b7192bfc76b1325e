package dev.ballast.instance;

import io.swagger.v3.oas.annotations.media.Schema;

/** One line of the service list. */
@Schema(name = "ServiceSummary")
record ServiceSummary(@Schema(example = "payments") String name, @Schema(minimum = "0") int instances,
		@Schema(minimum = "0") int routable, @Schema(minimum = "0") long totalEffectiveWeight,
		@Schema(minimum = "0") long revision) {
}
