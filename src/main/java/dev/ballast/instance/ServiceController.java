package dev.ballast.instance;

import java.util.List;

import dev.ballast.registry.Answer;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSummary;
import dev.ballast.watch.CatalogReads;
import dev.ballast.web.ForceParameter;
import dev.ballast.web.Headers;
import dev.ballast.web.Problem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import tools.jackson.databind.JsonNode;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/v1/services")
@Tag(name = "Services", description = "Services, their settings and counts")
class ServiceController {

	private final InstanceQueries queries;

	private final CatalogReads catalog;

	private final InstanceEdits edits;

	private final ServiceRemovals removals;

	ServiceController(InstanceQueries queries, CatalogReads catalog, InstanceEdits edits, ServiceRemovals removals) {
		this.queries = queries;
		this.catalog = catalog;
		this.edits = edits;
		this.removals = removals;
	}

	@GetMapping
	@Operation(operationId = "listServices", summary = "List services",
			description = "Every service with its instance counts and revision.")
	@ApiResponse(responseCode = "200", description = "The services", headers = @Header(name = Headers.STALE,
			description = Headers.STALE_DESCRIPTION, schema = @Schema(type = "boolean")))
	ResponseEntity<List<ServiceSummary>> list() {
		Answer<List<ServiceSummary>> answer = catalog.summaries();
		return Headers.ok(answer.stale()).body(answer.value());
	}

	@GetMapping("/{service}")
	@Operation(operationId = "getService", summary = "Get a service",
			description = "Settings, counts by health and routability, and revision.")
	@ApiResponse(responseCode = "200", description = "The service", headers = @Header(name = Headers.STALE,
			description = Headers.STALE_DESCRIPTION, schema = @Schema(type = "boolean")))
	ResponseEntity<ServiceView> get(@PathVariable String service) {
		Answer<ServiceView> answer = queries.service(ServiceName.of(service));
		return Headers.ok(answer.stale()).body(answer.value());
	}

	@PatchMapping(path = "/{service}", consumes = { "application/merge-patch+json", "application/json" })
	@Operation(operationId = "editService", summary = "Edit a service's settings",
			description = "JSON merge patch (RFC 7386) of weightPolicy, defaultWeight, leaseTtlSeconds, "
					+ "maxUnroutablePercent and maxEjectionPercent.",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
					schema = @Schema(implementation = SettingsEdit.class),
					examples = { @ExampleObject(name = "normalize weights", value = "{\"weightPolicy\":\"NORMALIZE\"}"),
							@ExampleObject(name = "refused: string default weight",
									description = "Answered with 422 under STRICT",
									value = "{\"defaultWeight\":\"0\"}") })))
	@ApiResponse(responseCode = "200", description = "The service after the edit",
			headers = @Header(name = Headers.NORMALIZED,
					description = "JSON pointers of converted fields (NORMALIZE only)"))
	ResponseEntity<ServiceView> edit(@PathVariable String service,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		Edited<ServiceView> edited = edits.editService(ServiceName.of(service), body);
		return InstanceController.withNormalized(ResponseEntity.ok(), edited.normalized()).body(edited.view());
	}

	@DeleteMapping("/{service}")
	@Operation(operationId = "deleteService", summary = "Remove a service", description = """
			Removes a service that has no instances: its settings, capacity peaks, subscribers and releases go with \
			it; its change log and audit stay for their retention. Then `GET` of it is 404, and watchers of it get a \
			final `delete` event (blocking queries of it answer an empty list) and keep waiting, as for any service \
			not registered. A service registered again under the name continues from the revision the removal \
			reached. With instances the removal is refused (409, naming them) unless `?force=true`, which removes \
			them first, each with its `remove` event, as deregistering them one by one would (deregistration is \
			not held to the unroutable budget: the instances are leaving). Audited as `service.delete`.""")
	@ApiResponse(responseCode = "204", description = "Removed")
	@ApiResponse(responseCode = "404", description = "The service is not registered",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "409",
			description = "The service has instances (the problem names up to " + ServiceRemovals.NAMED
					+ " of them) and force was not given",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ResponseEntity<Void> delete(@PathVariable String service, @RequestParam(name = "force",
			required = false) @Parameter(description = "true removes the service's instances with it") String force) {
		removals.remove(ServiceName.of(service), ForceParameter.parse(force));
		return ResponseEntity.noContent().build();
	}

}
