package dev.ballast.instance;

import java.util.List;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.ForceParameter;
import dev.ballast.web.Headers;
import dev.ballast.web.Problem;
import dev.ballast.web.RequestReader;
import dev.ballast.web.WriteScope;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

@RestController
@RequestMapping("/v1/services/{service}/instances")
@Tag(name = "Instances", description = "Register, query and edit the instances of a service")
class InstanceController {

	/** The 503 of the reads that may wait as blocking queries. */
	private static final String WATCHERS_503 = "The node serves its maximum of watchers (problem type overloaded). "
			+ Problem.DATABASE_503 + " Retry after Retry-After.";

	/** The 409 of the calls that can set a routable instance's weight to 0. */
	private static final String GUARDED = "Setting this routable instance's weight to 0 would make more than "
			+ "maxUnroutablePercent of the service's (or a zone's) nominal weight unroutable; the problem's guard "
			+ "member has the figures. Force passes it";

	static final String REFUSED_WEIGHT = """
			{"type":"https://ballast.dev/problems/invalid-request","title":"The request does not match the schema",\
			"status":422,"detail":"weight must be an integer from 0 to 10000; got the string \\"0\\" (the service's weight \
			policy is STRICT; send the JSON integer 0)","instance":"/v1/services/payments/instances/10.0.0.5:8080",\
			"errors":[{"pointer":"/weight","detail":"weight must be an integer from 0 to 10000; got the string \\"0\\" \
			(the service's weight policy is STRICT; send the JSON integer 0)"}]}""";

	static final String UNQUOTED_IF_MATCH = """
			{"type":"https://ballast.dev/problems/bad-parameter","title":"A parameter has bad syntax","status":400,\
			"detail":"If-Match must be * or entity tags as the ETag header gives them, quotes included (\\"5\\"); got \
			the header value 5","instance":"/v1/services/payments/instances/10.0.0.5:8080","errors":[{"pointer":\
			"#If-Match","detail":"If-Match must be * or entity tags as the ETag header gives them, quotes included \
			(\\"5\\"); got the header value 5"}]}""";

	private final Registrations registrations;

	private final InstanceEdits edits;

	private final RequestReader reader;

	private final InstanceReads reads;

	private final WriteScope scope;

	InstanceController(Registrations registrations, InstanceEdits edits, RequestReader reader, InstanceReads reads,
			WriteScope scope) {
		this.registrations = registrations;
		this.edits = edits;
		this.reader = reader;
		this.reads = reads;
		this.scope = scope;
	}

	/** The If-Match help Swagger UI shows beside the field. */
	private static final String IF_MATCH = "Optional. The ETag of your last GET of this instance, quotes included: "
			+ "\"<revision>\", e.g. \"5\" (Swagger UI shows it under the answer's response headers). The edit "
			+ "applies only if the instance is still at that revision, else 412: GET it again and retry. "
			+ "Without it, the edit applies to whatever is current.";

	@GetMapping
	@Operation(operationId = "listInstances", summary = "List a service's instances (optionally a blocking query)",
			description = """
					All instances with the revision they are current at (also in X-Ballast-Index). With `index`, a blocking \
					query: answered as soon as the service's revision is greater than `index`, or after `wait` with the \
					unchanged state. Clients pass the X-Ballast-Index they received as the next `index`. A named `subscriber` \
					acknowledges `index` as applied.""")
	@Parameter(name = "tag", in = ParameterIn.QUERY,
			description = "Only instances carrying this tag, compared without case; repeat for several, all of which "
					+ "must match (as Consul's ?tag=). The revision stays the service's",
			array = @ArraySchema(schema = @Schema(type = "string")))
	@ApiResponse(responseCode = "200", description = "The instances, sorted by id", headers = {
			@Header(name = Headers.INDEX, description = "The service revision", schema = @Schema(type = "integer")),
			@Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")) })
	@ApiResponse(responseCode = "503", description = WATCHERS_503,
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	DeferredResult<ResponseEntity<InstanceList>> list(@PathVariable String service,
			@RequestParam(required = false) @Parameter(
					description = "Blocking query: wait until the revision is greater than this. The X-Ballast-Index "
							+ "of the last answer, as a number (14) or as the quoted ETag (\"14\")") String index,
			@RequestParam(required = false) @Parameter(
					description = "How long a blocking query may wait: 30s, 5m, 1500ms (default 60s, at most 300s; "
							+ "a small random jitter is added)") String wait,
			@RequestParam(required = false) @Parameter(description = "Name of the polling subscriber: its index "
					+ "is recorded as the revision it has applied") String subscriber,
			@RequestParam(required = false) @Parameter(description = "The caller's zone: effectiveWeight and routable "
					+ "are that zone's view under the service's locality policy (docs/locality.md); without a policy, "
					+ "or without zone, the flat view", example = "az-1") String zone,
			@Parameter(hidden = true) HttpServletRequest request) {
		String caller = ZoneView.parameter(zone);
		// Read as sent: Spring would split a tag at its commas (Traefik's tags have
		// some).
		String[] tags = request.getParameterValues("tag");
		return reads.list(ServiceName.of(service), index, wait, subscriber, tags == null ? List.of() : List.of(tags),
				caller);
	}

	@GetMapping("/{id}")
	@Operation(operationId = "getInstance", summary = "Get one instance (optionally a blocking query)",
			description = """
					The instance with the checks the registry runs on it (kind, target, interval, status, last output, since \
					when) and, while it is CRITICAL, why (criticalReason, healthDetail). The ETag (and X-Ballast-Index) is \
					the revision of the instance's last change; a probe's verdict changes its checks without a revision. \
					With `index`, a blocking query: answered as soon as the instance changes after that revision (404 if it \
					is removed), or after `wait` unchanged. An instance's preStop hook can wait this way for its drain to \
					complete.""")
	@ApiResponse(responseCode = "200", description = "The instance, with its checks",
			headers = { @Header(name = HttpHeaders.ETAG, description = "Revision of the last change, quoted"),
					@Header(name = Headers.INDEX, description = "Revision of the last change",
							schema = @Schema(type = "integer")),
					@Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
							schema = @Schema(type = "boolean")) })
	@ApiResponse(responseCode = "503", description = WATCHERS_503,
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	DeferredResult<ResponseEntity<InstanceDetail>> get(@PathVariable String service, @PathVariable String id,
			@RequestParam(required = false) @Parameter(
					description = "Blocking query: wait until the instance changes after this revision. The ETag of "
							+ "the last answer, quoted (\"14\") or not (14)") String index,
			@RequestParam(required = false) @Parameter(
					description = "How long a blocking query may wait (default 60s, at most 300s)") String wait) {
		return reads.get(ServiceName.of(service), InstanceId.of(id), index, wait, scope.mayWrite(service));
	}

	@PutMapping("/{id}")
	@Operation(operationId = "registerInstance", summary = "Register or replace an instance",
			description = "Creates the service with default settings if it is new. The lease starts now. "
					+ "Under the service's STRICT weight policy (the default) weight must be a JSON integer from 0 to 10000; "
					+ "under NORMALIZE, canonical decimal strings and integral numbers are converted and reported in "
					+ "the Ballast-Normalized header.",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
					schema = @Schema(implementation = RegistrationRequest.class),
					examples = { @ExampleObject(name = "a registration",
							value = "{\"address\":\"10.0.0.5\",\"port\":8080,\"weight\":100,\"zone\":\"az-1\",\"metadata\":{\"version\":\"2.4.1\"},\"tags\":[\"v2\"]}"),
							@ExampleObject(name = "refused: string weight",
									description = "Answered with 422 under the STRICT policy",
									value = "{\"address\":\"10.0.0.5\",\"port\":8080,\"weight\":\"0\"}") })))
	@ApiResponse(responseCode = "409", description = GUARDED,
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "201", description = "Registered a new instance",
			headers = @Header(name = Headers.NORMALIZED,
					description = "JSON pointers of converted fields (NORMALIZE only)"))
	@ApiResponse(responseCode = "200",
			description = "Replaced an existing instance (or renewed its lease if nothing changed)",
			headers = @Header(name = Headers.NORMALIZED,
					description = "JSON pointers of converted fields (NORMALIZE only)"))
	@ApiResponse(responseCode = "422", description = "The body breaks the schema, e.g. a string weight",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "string weight", value = REFUSED_WEIGHT)))
	ResponseEntity<InstanceView> register(@PathVariable String service, @PathVariable String id,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		InstanceId instanceId = InstanceId.of(id);
		Registration registration = registrations.register(name, instanceId,
				reader.read(body, RegistrationRequest.class));
		return withNormalized(ResponseEntity.status(registration.created() ? HttpStatus.CREATED : HttpStatus.OK),
				registration.normalized())
			.eTag(Revisions.etag(registration.instance().revision()))
			.body(registration.instance());
	}

	@PatchMapping(path = "/{id}", consumes = { "application/merge-patch+json", "application/json" })
	@Operation(operationId = "editInstance", summary = "Edit an instance's weight, zone, metadata or tags",
			description = "JSON merge patch (RFC 7386): null removes the zone, a metadata key or the tags; a list of "
					+ "tags replaces them all. "
					+ "With If-Match, the edit applies only if the instance is still at that revision. "
					+ "A weight of 0 on a routable instance is guarded like a drain (409 when it would make more "
					+ "than maxUnroutablePercent of the nominal weight unroutable); ?force=true passes the guard.",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
					schema = @Schema(implementation = InstanceEdit.class),
					examples = { @ExampleObject(name = "halve the weight", value = "{\"weight\":50}"),
							@ExampleObject(name = "refused: string weight",
									description = "Answered with 422 under STRICT", value = "{\"weight\":\"50\"}") })))
	@ApiResponse(responseCode = "200", description = "The instance after the edit",
			headers = @Header(name = Headers.NORMALIZED,
					description = "JSON pointers of converted fields (NORMALIZE only)"))
	@ApiResponse(responseCode = "409", description = GUARDED,
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "400",
			description = "The body is not valid JSON, or If-Match is not an entity tag (an unquoted revision: "
					+ "send it quoted, as the ETag header gives it)",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "unquoted If-Match", value = UNQUOTED_IF_MATCH)))
	@ApiResponse(responseCode = "412", description = "If-Match does not match the instance's current revision",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "422", description = "The patch breaks the schema",
			content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class),
					examples = @ExampleObject(name = "string weight", value = REFUSED_WEIGHT)))
	ResponseEntity<InstanceView> edit(@PathVariable String service, @PathVariable String id,
			@RequestBody @Parameter(hidden = true) JsonNode body,
			@RequestHeader(name = HttpHeaders.IF_MATCH, required = false) @Parameter(description = IF_MATCH,
					example = "\"5\"") String ifMatch,
			@RequestParam(name = "force",
					required = false) @Parameter(description = ForceParameter.DESCRIPTION) String force) {
		Edited<InstanceView> edited = edits.editInstance(ServiceName.of(service), InstanceId.of(id), body, ifMatch,
				ForceParameter.parse(force));
		return withNormalized(ResponseEntity.ok(), edited.normalized()).eTag(Revisions.etag(edited.view().revision()))
			.body(edited.view());
	}

	@DeleteMapping("/{id}")
	@Operation(operationId = "deregisterInstance", summary = "Deregister an instance",
			description = "Watchers receive a remove event.")
	@ApiResponse(responseCode = "204", description = "Removed")
	ResponseEntity<Void> deregister(@PathVariable String service, @PathVariable String id) {
		registrations.deregister(ServiceName.of(service), InstanceId.of(id));
		return ResponseEntity.noContent().build();
	}

	static ResponseEntity.BodyBuilder withNormalized(ResponseEntity.BodyBuilder response, List<String> normalized) {
		return normalized.isEmpty() ? response : response.header(Headers.NORMALIZED, String.join(",", normalized));
	}

}
