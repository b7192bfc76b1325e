package dev.ballast.audit;

import java.util.List;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

@RestController
@Tag(name = "Audit", description = "The append-only log of every accepted mutation")
class AuditController {

	private final AuditLog log;

	AuditController(AuditLog log) {
		this.log = log;
	}

	@GetMapping("/v1/audit")
	@Operation(operationId = "listAuditEvents", summary = "Read the audit log, newest first", description = """
			Every accepted mutation, written in the transaction of the write: registrations, deregistrations, \
			operator edits of instances and service settings, drains, serve, maintenance and traffic shifts, and the \
			changes the registry makes by itself (tokenId system). Each event carries who made it, the request's \
			X-Request-Id (every response carries one: the caller's when it matches ^[A-Za-z0-9._:-]{1,128}$, \
			otherwise a new one), the resource before and after, the fields converted under the NORMALIZE weight \
			policy and whether the guard was forced. Pages are cut by id: follow next (or the Link header with \
			rel="next") until it is absent.""")
	@ApiResponse(responseCode = "200", description = "A page of events, newest first",
			headers = @Header(name = HttpHeaders.LINK, description = "<next page URL>; rel=\"next\" unless last"))
	ResponseEntity<AuditPage> auditEvents(
			@RequestParam(required = false) @Parameter(description = "Only this service's events",
					schema = @Schema(pattern = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")) String service,
			@RequestParam(required = false) @Parameter(description = "Only this instance's events",
					schema = @Schema(pattern = "^[A-Za-z0-9._:-]{1,128}$")) String instance,
			@RequestParam(required = false) @Parameter(description = "Only events at or after this instant",
					schema = @Schema(format = "date-time", example = "2026-11-30T10:00:00Z")) String since,
			@RequestParam(required = false) @Parameter(
					description = "Only events older than this id: the cursor of the next page",
					schema = @Schema(type = "integer", format = "int64", minimum = "1")) String before,
			@RequestParam(required = false) @Parameter(description = "Events per page",
					schema = @Schema(type = "integer", minimum = "1", maximum = "1000",
							defaultValue = "100")) String limit) {
		AuditQuery query = AuditQuery.parse(service, instance, since, before, limit);
		List<AuditEventView> events = log.read(query);
		if (events.size() <= query.limit()) {
			return ResponseEntity.ok(new AuditPage(events, null));
		}
		List<AuditEventView> page = events.subList(0, query.limit());
		String next = next(query, page.getLast().id());
		return ResponseEntity.ok()
			.header(HttpHeaders.LINK, "<%s>; rel=\"next\"".formatted(next))
			.body(new AuditPage(List.copyOf(page), next));
	}

	private static String next(AuditQuery query, long lastId) {
		UriComponentsBuilder next = UriComponentsBuilder.fromPath("/v1/audit");
		if (query.service() != null) {
			next.queryParam("service", query.service());
		}
		if (query.instance() != null) {
			next.queryParam("instance", query.instance());
		}
		if (query.since() != null) {
			// Instant.toString is always in UTC with a Z: no '+' that a query string
			// would read as a space.
			next.queryParam("since", query.since().toString());
		}
		return next.queryParam("limit", query.limit()).queryParam("before", lastId).build().toUriString();
	}

}
