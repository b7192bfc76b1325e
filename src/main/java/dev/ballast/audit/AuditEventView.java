package dev.ballast.audit;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import tools.jackson.databind.JsonNode;

/**
 * An audit event as operators read it.
 *
 * @param id its position in the log; larger is newer
 * @param at when the change was made
 * @param tokenId the token that made it ({@code system} for the registry itself)
 * @param tokenName that token's name
 * @param action what was done
 * @param service the service, or null
 * @param instance the instance, or null for a service or a release
 * @param before the resource before, null when it was created
 * @param after the resource after, null when it was removed
 * @param normalizations JSON pointers of fields converted under the NORMALIZE policy
 * @param forced whether the request carried the guard's force
 * @param requestId the request's X-Request-Id, or null for the registry's own changes
 * @param details what the request said that before and after do not show
 */
@Schema(name = "AuditEvent", description = "One accepted mutation")
record AuditEventView(@Schema(minimum = "1", example = "1042") long id, Instant at,
		@Schema(example = "7f3c9a") String tokenId, @Schema(example = "deploy-bot") String tokenName,
		@Schema(example = "instance.drain",
				description = """
						instance.create, instance.replace, instance.deregister, instance.edit, instance.drain, instance.serve, \
						instance.maintenance, service.edit, service.delete, release.start, release.advance, release.promote, release.abort; \
						by the registry itself (tokenId system): instance.expire, instance.remove, instance.weight-revert, \
						instance.drained, instance.warmed, instance.maintenance-end, release.advance, release.pause""") String action,
		@Schema(types = {
				"string", "null" }, example = "payments") String service,
		@Schema(types = { "string", "null" }, example = "10.0.0.5:8080") String instance,
		@Schema(implementation = Object.class, types = { "object", "null" },
				description = "The instance, service settings or release before the change; null when it was created") JsonNode before,
		@Schema(implementation = Object.class, types = { "object", "null" },
				description = "The instance, service settings or release after the change; null when it was removed") JsonNode after,
		@Schema(example = "[\"/weight\"]") List<String> normalizations,
		@Schema(description = "The request carried \"force\": true past the guard") boolean forced,
		@Schema(types = { "string", "null" }, example = "c0ffee-42") String requestId,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(implementation = Object.class, types = "object",
				description = "What the request said that before and after do not show, e.g. until of a weight "
						+ "override or durationSeconds of a drain; absent when nothing") JsonNode details){

}
