package dev.ballast.watch;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A named subscriber of a service.
 *
 * @param name the name it gave ({@code ?subscriber=}), or an xDS client's node id
 * @param protocol how it follows the service: {@code sse}, {@code poll} or {@code xds};
 * absent for one known only by an acknowledgement
 * @param zone the zone whose view it asked for (an xDS client's
 * {@code node.locality.zone})
 * @param deliveredRevision the last revision sent to it
 * @param ackedRevision the last revision it acknowledged having applied; for an xDS
 * client, the revision of the last endpoints (EDS) version it ACKed
 * @param lag revisions between the service's current revision and its acknowledgement
 * @param lastNack the last response an xDS client refused
 * @param lastSeenAt when it was last connected, polling or acknowledging
 */
@Schema(name = "Subscriber")
record SubscriberView(@Schema(example = "nginx-1") String name, @Schema(allowableValues = {
		"sse", "poll", "xds" }) @JsonInclude(JsonInclude.Include.NON_NULL) String protocol,
		@Schema(example = "az-1") @JsonInclude(JsonInclude.Include.NON_NULL) String zone,
		@Schema(minimum = "0", example = "42") long deliveredRevision,
		@Schema(minimum = "0", example = "41") long ackedRevision, @Schema(minimum = "0", example = "1") long lag,
		@JsonInclude(JsonInclude.Include.NON_NULL) SubscriberNack lastNack, Instant lastSeenAt){
}
