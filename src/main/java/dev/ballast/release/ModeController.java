package dev.ballast.release;

import java.util.List;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.Problem;
import dev.ballast.web.RequestReader;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Release modes", description = "Drain, warm up and maintain instances, guarded by the unroutable budget")
class ModeController {

	static final String GUARD_EXAMPLE = """
			{"type":"https://ballast.dev/problems/guard-breach","title":"A guard would break","status":409,\
			"detail":"draining c would make 30.0% of the nominal weight of service payments unroutable (limit 25%, \
			now 20.0%); the budget is held by a, b. Wait until they serve again, or send \\"force\\": true",\
			"instance":"/v1/services/payments/instances/c/drain","guard":{"scope":"service","limitPercent":25,\
			"currentPercent":20.0,"resultingPercent":30.0,"nominalWeight":1000,"unroutableWeight":200,\
			"resultingWeight":300,"holders":["a","b"]}}""";

	private final ModeChanges changes;

	private final RequestReader reader;

	ModeController(ModeChanges changes, RequestReader reader) {
		this.changes = changes;
		this.reader = reader;
	}

	@PostMapping("/v1/services/{service}/instances/{id}/drain")
	@Operation(operationId = "drainInstance", summary = "Drain an instance to weight 0",
			description = """
					Mode DRAINING at once; effectiveWeight ramps down in integer steps (one per ballast.release.step-interval) \
					to exactly 0 over durationSeconds (default 10), each step a change event. The instance becomes DRAINED when \
					every live subscriber has acknowledged the revision where its weight reached 0, or after \
					ballast.drain.confirm-timeout (then unconfirmedSubscribers lists who did not). Until then the instance, \
					this answer included, says what the drain waits for: unconfirmedSubscribers lists the subscribers that \
					have not yet acknowledged weight 0 and modeUntil the time it completes at the latest; both are absent \
					when no subscriber is live. Refused with 409 when more \
					than maxUnroutablePercent of the service's (or a zone's) nominal weight would be unroutable, unless force. \
					Repeating the request on a draining or drained instance returns it unchanged.""",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = false,
					content = @Content(schema = @Schema(implementation = DrainRequest.class),
							examples = { @ExampleObject(name = "drain over 30 s", value = "{\"durationSeconds\":30}"),
									@ExampleObject(name = "force past the guard",
											value = "{\"durationSeconds\":30,\"force\":true}") })))
	@ApiResponse(responseCode = "202", description = "The instance, DRAINING (or DRAINED)")
	@ApiResponse(responseCode = "409", description = "The unroutable budget would break",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "budget", value = GUARD_EXAMPLE)))
	ResponseEntity<InstanceView> drain(@PathVariable String service, @PathVariable String id,
			@RequestBody(required = false) @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		InstanceId instance = InstanceId.of(id);
		return accepted(changes.drain(name, instance, reader.read(orEmpty(body), DrainRequest.class)));
	}

	@PostMapping("/v1/services/{service}/drains")
	@Operation(operationId = "drainInstances", summary = "Drain several instances together (rolling release)",
			description = """
					All or none: the guard is checked for the whole batch at once. Instances already draining are returned \
					as they are.""",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
					schema = @Schema(implementation = BatchDrainRequest.class),
					examples = @ExampleObject(name = "batch",
							value = "{\"instances\":[\"10.0.0.5:8080\",\"10.0.0.6:8080\"],\"durationSeconds\":30}"))))
	@ApiResponse(responseCode = "202", description = "The instances, in the order asked")
	@ApiResponse(responseCode = "409", description = "The unroutable budget would break; nothing was drained",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "budget", value = GUARD_EXAMPLE)))
	ResponseEntity<List<InstanceView>> drainBatch(@PathVariable String service,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		return ResponseEntity.status(HttpStatus.ACCEPTED)
			.body(changes.drainBatch(name, reader.read(body, BatchDrainRequest.class)));
	}

	@PostMapping("/v1/services/{service}/instances/{id}/serve")
	@Operation(operationId = "serveInstance", summary = "Serve again, warming up", description = """
			Mode WARMING with effectiveWeight 1, ramping in integer steps to the configured weight over warmupSeconds \
			(default 30), then SERVING; with 0, SERVING at once. Repeating it on a serving or warming instance \
			returns it unchanged.""",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = false,
					content = @Content(schema = @Schema(implementation = ServeRequest.class),
							examples = @ExampleObject(name = "warm up over 60 s", value = "{\"warmupSeconds\":60}"))))
	@ApiResponse(responseCode = "202", description = "The instance, WARMING (or SERVING)")
	ResponseEntity<InstanceView> serve(@PathVariable String service, @PathVariable String id,
			@RequestBody(required = false) @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		InstanceId instance = InstanceId.of(id);
		return accepted(changes.serve(name, instance, reader.read(orEmpty(body), ServeRequest.class)));
	}

	@PostMapping("/v1/services/{service}/instances/{id}/maintenance")
	@Operation(operationId = "startMaintenance", summary = "Put an instance in maintenance", description = """
			effectiveWeight 0 at once, with the reason shown on the instance; with until, the registry returns it to \
			SERVING by itself at that time. Guarded like a drain.""",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
					content = @Content(schema = @Schema(implementation = MaintenanceRequest.class),
							examples = @ExampleObject(name = "maintenance for a kernel upgrade",
									description = "Add \"until\" (a future instant) to end it by itself",
									value = "{\"reason\":\"kernel upgrade\"}"))))
	@ApiResponse(responseCode = "202", description = "The instance, in MAINTENANCE")
	@ApiResponse(responseCode = "409", description = "The unroutable budget would break",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "budget", value = GUARD_EXAMPLE)))
	ResponseEntity<InstanceView> maintenance(@PathVariable String service, @PathVariable String id,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		InstanceId instance = InstanceId.of(id);
		return accepted(changes.maintenance(name, instance, reader.read(body, MaintenanceRequest.class)));
	}

	private static JsonNode orEmpty(JsonNode body) {
		return body == null ? JsonNodeFactory.instance.objectNode() : body;
	}

	private static ResponseEntity<InstanceView> accepted(InstanceView instance) {
		return ResponseEntity.status(HttpStatus.ACCEPTED).body(instance);
	}

}
