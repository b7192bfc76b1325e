package dev.ballast.watch;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A named subscriber of a service.
 *
 * @param name the name it gave ({@code ?subscriber=})
 * @param deliveredRevision the last revision sent to it
 * @param ackedRevision the last revision it acknowledged having applied
 * @param lag revisions between the service's current revision and its acknowledgement
 * @param lastSeenAt when it was last connected, polling or acknowledging
 */
@Schema(name = "Subscriber")
record SubscriberView(@Schema(example = "nginx-1") String name,
		@Schema(minimum = "0", example = "42") long deliveredRevision,
		@Schema(minimum = "0", example = "41") long ackedRevision, @Schema(minimum = "0", example = "1") long lag,
		Instant lastSeenAt) {
}
