package dev.ballast.prometheus;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import dev.ballast.database.Reachability;
import dev.ballast.instance.InstanceDirectory;
import dev.ballast.registry.Answer;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.watch.BlockingQueries;
import dev.ballast.watch.Catalog;
import dev.ballast.web.BadParameterException;
import dev.ballast.web.Headers;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Problem;
import jakarta.servlet.http.HttpServletRequest;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Prometheus' HTTP service discovery, answered from the state this node applied from the
 * change log ({@link BlockingQueries#applied}), the one every watch stream, blocking
 * query, Consul read and DNS answer reads: a service Prometheus asks for is followed from
 * then on, for as long as a watched service, and one the node does not follow yet is
 * answered once the node's one reader has loaded it. During an outage the followed
 * services are answered as they were last applied, marked stale; a service that could not
 * be loaded is answered from the node's last known state, or the answer is 503: a partial
 * answer would read as deregistrations.
 */
@RestController
@Tag(name = "Prometheus", description = "Scrape targets for Prometheus' HTTP service discovery")
class TargetsController {

	/**
	 * The longest a load of a service the node does not follow yet is waited for; beyond
	 * the database's own statement and network timeouts, so that it only cuts a wait no
	 * other bound would.
	 */
	private static final Duration LOAD_WAIT = Duration.ofSeconds(10);

	/**
	 * Where an answer is put together once its states are in: off the thread that
	 * completed the last of them, since falling back to the last known state may try the
	 * database.
	 */
	private static final Executor ANSWERING = task -> Thread.ofVirtual().name("ballast-prometheus").start(task);

	private final InstanceDirectory directory;

	private final BlockingQueries reads;

	private final Reachability reachability;

	TargetsController(InstanceDirectory directory, BlockingQueries reads, Reachability reachability) {
		this.directory = directory;
		this.reads = reads;
		this.reachability = reachability;
	}

	@GetMapping(path = "/v1/prometheus/targets", produces = MediaType.APPLICATION_JSON_VALUE)
	@Operation(operationId = "listPrometheusTargets", summary = "Scrape targets for Prometheus (http_sd_configs)",
			description = """
					The routable instances (effectiveWeight > 0) of every service, or of the services named by `service`, \
					as Prometheus' HTTP service discovery reads them: one group per instance with its `host:port` and its \
					`__meta_ballast_*` labels (service, id, zone when it has one, mode, weight, effective_weight, health, \
					tags as Prometheus' Consul discovery writes __meta_consul_tags (`,v2,canary,`, `,,` for none), \
					and metadata_<key> for each metadata entry, the key's other characters than letters, digits and _ \
					turned into _). An instance at effective weight 0 (weight 0, drained, in maintenance, ejected after \
					its lease ran out) is left out. A named service that is not registered adds no target. Sorted by \
					service and id.""")
	@ApiResponse(responseCode = "200", description = "The target groups",
			headers = @Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")),
			content = @Content(mediaType = MediaType.APPLICATION_JSON_VALUE,
					array = @ArraySchema(schema = @Schema(implementation = TargetGroup.class))))
	@ApiResponse(responseCode = "400", description = "A service name does not match the service pattern",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@ApiResponse(responseCode = "503",
			description = "The database is unavailable and this node does not know every service asked for; "
					+ "Prometheus keeps its last targets. Retry after Retry-After.",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	@Parameter(name = "service", in = ParameterIn.QUERY,
			description = "Only this service's targets; repeat for several (default: every service)",
			array = @ArraySchema(schema = @Schema(type = "string")))
	CompletableFuture<ResponseEntity<List<TargetGroup>>> targets(@Parameter(hidden = true) HttpServletRequest request) {
		// Read as sent: Spring would split a value at commas and bind ?service= as no
		// filter at all, which would answer every service to a typo.
		Set<ServiceName> asked = names(request.getParameterValues("service"));
		Answer<List<ServiceName>> services = asked.isEmpty() ? registered()
				: new Answer<>(asked.stream().sorted(Comparator.comparing(ServiceName::value)).toList(), false);
		List<CompletableFuture<Answer<Optional<InstanceList>>>> states = services.value()
			.stream()
			.map(this::state)
			.toList();
		return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new)).thenApply(all -> {
			List<Answer<Optional<InstanceList>>> read = states.stream().map(CompletableFuture::join).toList();
			boolean stale = services.stale() || read.stream().anyMatch(Answer::stale) || !reachability.reachable();
			List<TargetGroup> groups = read.stream()
				.flatMap(state -> state.value().stream())
				.flatMap(list -> list.instances().stream())
				.filter(InstanceView::routable)
				.map(TargetGroup::of)
				.toList();
			return Headers.ok(stale).body(groups);
		});
	}

	/** Every service with instances, sorted by name; as last known during an outage. */
	private Answer<List<ServiceName>> registered() {
		Answer<List<Catalog.Service>> catalog = directory.services();
		return new Answer<>(catalog.value()
			.stream()
			.filter(service -> service.instances() > 0)
			.map(service -> ServiceName.of(service.name()))
			.toList(), catalog.stale());
	}

	/**
	 * The service's state as this node applied it (empty when it is not registered), kept
	 * as its last known state; or, when it cannot be loaded in time, its last known
	 * state, marked stale, or the failure.
	 */
	private CompletableFuture<Answer<Optional<InstanceList>>> state(ServiceName service) {
		return reads.applied(service)
			.copy()
			.orTimeout(LOAD_WAIT.toMillis(), TimeUnit.MILLISECONDS)
			.handleAsync((applied, failure) -> {
				if (failure == null) {
					return new Answer<>(applied.map(directory::remember), false);
				}
				Answer<InstanceList> known = directory.listOrNone(service);
				return new Answer<>(Optional.of(known.value()), known.stale());
			}, ANSWERING);
	}

	private static Set<ServiceName> names(String[] services) {
		Set<ServiceName> names = new HashSet<>();
		if (services != null) {
			for (String service : services) {
				try {
					names.add(ServiceName.of(service));
				}
				catch (InvalidRequestException ex) {
					throw new BadParameterException("service", ex.getMessage());
				}
			}
		}
		return names;
	}

}
