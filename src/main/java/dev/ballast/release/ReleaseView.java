package dev.ballast.release;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A release as clients see it.
 *
 * @param id its id
 * @param service the service
 * @param state ACTIVE, PAUSED, COMPLETED or ABORTED
 * @param stateReason why it is paused
 * @param from selector of the group giving up traffic
 * @param to selector of the group taking it
 * @param fromInstances the from group
 * @param toInstances the to group
 * @param steps percentages for the to group
 * @param step index of the current step
 * @param percent the to group's current percentage of the total
 * @param totalWeight the weight that serves in the two groups, which they share
 * @param stepIntervalSeconds seconds between automatic steps, 0 for manual
 * @param nextStepAt when it advances by itself
 * @param createdAt when it started
 */
@Schema(name = "Release")
record ReleaseView(@Schema(example = "7") long id, @Schema(example = "payments") String service,
		@Schema(example = "ACTIVE") Release.State state,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(description = "Why it is paused") String stateReason,
		@Schema(example = "{\"version\":\"1.0\"}") Map<String, String> from,
		@Schema(example = "{\"version\":\"1.1\"}") Map<String, String> to, List<String> fromInstances,
		List<String> toInstances, @Schema(example = "[10,50,100]") List<Integer> steps,
		@Schema(minimum = "0", example = "0") int step,
		@Schema(minimum = "0", maximum = "100", example = "10") int percent,
		@Schema(minimum = "0", example = "600") long totalWeight,
		@Schema(minimum = "0", example = "0") int stepIntervalSeconds,
		@JsonInclude(JsonInclude.Include.NON_NULL) Instant nextStepAt, Instant createdAt) {

	static ReleaseView of(Release release) {
		return new ReleaseView(release.id(), release.service(), release.state(), release.stateReason(), release.from(),
				release.to(), release.fromIds(), release.toIds(), release.steps(), release.step(), release.percent(),
				release.totalWeight(), release.stepIntervalSeconds(), release.nextStepAt(), release.createdAt());
	}

}
