package dev.ballast.release;

import java.util.List;

import dev.ballast.registry.ServiceName;
import dev.ballast.web.ForceParameter;
import dev.ballast.web.NotFoundException;
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

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@Tag(name = "Releases", description = "Traffic shifts between two groups of instances: blue/green, canary")
class ReleaseController {

	private final Releases releases;

	private final RequestReader reader;

	ReleaseController(Releases releases, RequestReader reader) {
		this.releases = releases;
		this.reader = reader;
	}

	@PostMapping("/v1/services/{service}/releases")
	@Operation(operationId = "startRelease", summary = "Start a traffic shift",
			description = """
					The `to` group (instances whose metadata contains every pair of the `to` selector) gets steps[0]% of the \
					weight that serves in the two groups at once (rounded down; members held out count 0 on their side and \
					keep their weight); `from` keeps the rest, and the shares stay exact while members leave or rejoin \
					rotation. Within a group, weights are shared in proportion to the members' configured weights before the \
					release (largest remainder; a weight never passes 10000). A canary is a release with small first steps, e.g. [1, 5, 25, 100]. With \
					stepIntervalSeconds, it advances by itself. Every step is guarded: the to group must carry its share of the \
					from group's nominal weight (their weights before the release) with its members that can take traffic; \
					what it cannot carry counts against maxUnroutablePercent (409 unless force). Going to 100% thus needs the \
					to group's capable nominal weight to be at least (100 - maxUnroutablePercent)% of the from group's. One \
					release per service at a time.""",
			requestBody = @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
					schema = @Schema(implementation = ReleaseRequest.class),
					examples = { @ExampleObject(name = "blue/green, by hand",
							value = "{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[10,50,100]}"),
							@ExampleObject(name = "canary, every 5 minutes",
									value = "{\"from\":{\"version\":\"1.0\"},\"to\":{\"version\":\"1.1\"},\"steps\":[1,5,25,100],\"stepIntervalSeconds\":300}") })))
	@ApiResponse(responseCode = "201", description = "Started, at its first step")
	@ApiResponse(responseCode = "409",
			description = "A release is under way, a group is empty, or the to group cannot take traffic",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ResponseEntity<ReleaseView> start(@PathVariable String service,
			@RequestBody @Parameter(hidden = true) JsonNode body) {
		ServiceName name = ServiceName.of(service);
		return ResponseEntity.status(HttpStatus.CREATED)
			.body(releases.start(name, reader.read(body, ReleaseRequest.class)));
	}

	@GetMapping("/v1/services/{service}/releases")
	@Operation(operationId = "listReleases", summary = "List a service's releases, newest first (at most 100)")
	@ApiResponse(responseCode = "200", description = "The releases")
	List<ReleaseView> list(@PathVariable String service) {
		return releases.list(ServiceName.of(service));
	}

	@GetMapping("/v1/services/{service}/releases/{id}")
	@Operation(operationId = "getRelease", summary = "Get a release")
	@ApiResponse(responseCode = "200", description = "The release")
	ReleaseView get(@PathVariable String service, @PathVariable String id) {
		return releases.get(ServiceName.of(service), releaseId(id));
	}

	@PostMapping("/v1/services/{service}/releases/{id}/advance")
	@Operation(operationId = "advanceRelease", summary = "Take the next step",
			description = "A paused release resumes if its to group can take traffic again; otherwise it stays paused.")
	@ApiResponse(responseCode = "200", description = "The release after the step")
	@ApiResponse(responseCode = "409",
			description = "The release is over, or the to group cannot carry the step (a guard)",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ReleaseView advance(@PathVariable String service, @PathVariable String id, @RequestParam(name = "force",
			required = false) @Parameter(description = ForceParameter.DESCRIPTION) String force) {
		return releases.advance(ServiceName.of(service), releaseId(id), ForceParameter.parse(force));
	}

	@PostMapping("/v1/services/{service}/releases/{id}/promote")
	@Operation(operationId = "promoteRelease", summary = "Jump to 100%")
	@ApiResponse(responseCode = "200", description = "The completed release")
	@ApiResponse(responseCode = "409",
			description = "The release is over, or the to group cannot carry the step (a guard)",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ReleaseView promote(@PathVariable String service, @PathVariable String id, @RequestParam(name = "force",
			required = false) @Parameter(description = ForceParameter.DESCRIPTION) String force) {
		return releases.promote(ServiceName.of(service), releaseId(id), ForceParameter.parse(force));
	}

	@PostMapping("/v1/services/{service}/releases/{id}/abort")
	@Operation(operationId = "abortRelease",
			summary = "Abort: restore every weight as before the release, in one transaction",
			description = """
					Every member gets back its weight from before the release (or the weight set by hand on it since). 					Guarded like every action: weight given back to members that cannot serve it (in maintenance, 					draining, ejected) is capacity out of rotation, refused with 409 past maxUnroutable unless 					?force=true.""")
	@ApiResponse(responseCode = "200", description = "The aborted release")
	@ApiResponse(responseCode = "409",
			description = "The release is already over, or restoring its weights would break the unroutable budget",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	ReleaseView abort(@PathVariable String service, @PathVariable String id, @RequestParam(name = "force",
			required = false) @Parameter(description = ForceParameter.DESCRIPTION) String force) {
		return releases.abort(ServiceName.of(service), releaseId(id), ForceParameter.parse(force));
	}

	/** Release ids are numbers; anything else names no release. */
	private static long releaseId(String id) {
		try {
			return Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			throw new NotFoundException("there is no release %s; release ids are numbers"
				.formatted(id.length() > 40 ? id.substring(0, 40) + "…" : id));
		}
	}

}
