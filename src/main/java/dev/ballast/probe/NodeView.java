package dev.ballast.probe;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One registry node as the nodes that share the database know it.
 *
 * @param id its identity (a restarted process is a new node)
 * @param self whether it is the node that answered
 * @param alive whether it said it was alive within the probing's liveness
 * @param lastSeenAt when it last said so, by the database's clock
 * @param renewalsThrough the moment through which it has written the heartbeats it
 * absorbed, or null when it has written none (or stopped cleanly)
 * @param checks how many checks it probes
 * @param probing the first of them, by key
 */
@Schema(name = "Node", description = "A registry node: whether it is alive, the checks it probes, how far it has "
		+ "written the heartbeats it absorbed")
record NodeView(@Schema(example = "4123@registry-1/5f0c…") String id,
		@Schema(description = "Whether this is the node that answered") boolean self,
		@Schema(description = "Whether it said it was alive within the last three membership intervals") boolean alive,
		@Schema(description = "When it last said so, by the database's clock") Instant lastSeenAt,
		@Schema(description = "Its lease-writer position: the moment through which it has written the heartbeats it "
				+ "absorbed (leases are judged no later than a silent node's position). Absent when it wrote none") @JsonInclude(JsonInclude.Include.NON_NULL) Instant renewalsThrough,
		@Schema(minimum = "0", description = "How many checks it probes") int checks,
		@ArraySchema(arraySchema = @Schema(description = "The checks it probes, at most " + Nodes.SHOWN_CHECKS
				+ ", by service, instance and position")) List<ProbedCheck> probing) {

	/** A check a node probes. */
	@Schema(name = "ProbedCheck")
	record ProbedCheck(@Schema(example = "payments") String service, @Schema(example = "10.0.0.5:8080") String instance,
			@Schema(example = "service:10.0.0.5:8080:1") String check, @Schema(example = "HTTP") String kind,
			@Schema(example = "passing") String status) {
	}

}
