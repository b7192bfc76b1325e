package dev.ballast.audit;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A page of the audit log.
 *
 * @param events newest first
 * @param next the URL of the next (older) page; absent on the last page
 */
@Schema(name = "AuditPage")
record AuditPage(List<AuditEventView> events,
		@JsonInclude(JsonInclude.Include.NON_NULL) @Schema(description = "The next, older page; absent on the last",
				example = "/v1/audit?service=payments&limit=100&before=1042") String next) {

}
