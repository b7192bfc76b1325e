package dev.ballast.watch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ballast.database.Reachability;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.BadParameterException;
import dev.ballast.web.Headers;
import dev.ballast.web.OverloadedException;
import dev.ballast.web.Problem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Server-sent event streams of one or several services. Once a stream is open its
 * connection is handed from the container to the stream ({@link StreamConnection}) and
 * written without waiting, so an open stream holds no thread and none of the container's
 * per-request buffers.
 */
@RestController
@Tag(name = "Watch", description = "Change streams and subscribers")
class WatchController {

	static final String LAST_EVENT_ID = "Last-Event-ID";

	/** Services in one multiplexed stream; its event ids list every one of them. */
	static final int MAX_SERVICES = 64;

	private static final String EXAMPLE = """
			id: 42
			event: snapshot
			data: {"service":"payments","revision":42,"instances":[]}

			id: 43
			event: upsert
			data: {"service":"payments","id":"10.0.0.5:8080","address":"10.0.0.5","port":8080,"weight":100,\
			"effectiveWeight":100,"routable":true,"mode":"SERVING","health":"PASSING","metadata":{},"leaseTtlSeconds":30,\
			"leaseExpiresAt":"2026-11-30T10:00:30Z","revision":43}

			id: 44
			event: remove
			data: {"service":"payments","id":"10.0.0.5:8080","revision":44}

			: keepalive

			""";

	private final ChangeFollower follower;

	private final StreamPlaces places;

	private final Subscribers subscribers;

	private final WatchSettings settings;

	private final Reachability reachability;

	WatchController(ChangeFollower follower, StreamPlaces places, Subscribers subscribers, WatchSettings settings,
			Reachability reachability) {
		this.reachability = reachability;
		this.follower = follower;
		this.places = places;
		this.subscribers = subscribers;
		this.settings = settings;
	}

	@GetMapping("/v1/services/{service}/watch")
	@Operation(operationId = "watchService", summary = "Watch a service's instances (server-sent events)",
			description = """
					First a `snapshot` event with every instance, then an `upsert` (the full instance) or `remove` event per \
					change, each with `id:` = the service revision. A settings change sends only an `id:` line, which moves \
					the client's Last-Event-ID without dispatching an event. Reconnect with `Last-Event-ID` to receive exactly \
					the changes after it, or a fresh `snapshot` when the change log no longer holds them. A `: keepalive` \
					comment comes at least every 15 s. After about 10 minutes (jittered), or when the node stops, the stream \
					ends with `event: reconnect` (data `{"reason": ...}`): reconnect with Last-Event-ID. A client that does \
					not keep up gets a fresh snapshot instead of its backlog. With `subscriber`, the registry tracks what was \
					delivered to it; acknowledge applied revisions with POST .../subscribers/{subscriber}/ack. While the \
					database is unreachable the stream stays open on the node's last known state: it receives \
					`event: stale` with data `{"stale":true}` (and the response carries X-Ballast-Stale: true if it opened \
					then), and `{"stale":false}` once the database is back, followed by the changes it missed. A service \
					that is not registered (yet, or any more) is watched all the same: its `snapshot` is empty, and its \
					first registration arrives as an `upsert`. When a service is removed (DELETE /v1/services/{service}), \
					its instances' `remove` events are followed by `event: delete` with data `{"service":...,\
					"revision":...}`, and the stream stays open for the name.""")
	@ApiResponse(responseCode = "200", description = "The event stream",
			headers = @Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")),
			content = @Content(mediaType = "text/event-stream", schema = @Schema(type = "string"),
					examples = @ExampleObject(name = "stream", value = EXAMPLE)))
	@ApiResponse(responseCode = "503",
			description = "The node serves its maximum of watchers, or the token holds its maximum of open streams on "
					+ "this node; retry after Retry-After, here or on another node",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	void watch(@PathVariable String service,
			@RequestParam(required = false) @Parameter(
					description = "Name this subscriber (pattern " + QueryParameters.SUBSCRIBER_PATTERN
							+ ") to have its delivered and acknowledged revisions tracked") String subscriber,
			@RequestParam(required = false) @Parameter(description = "The caller's zone: the stream sends that zone's "
					+ "view (docs/locality.md) as a `snapshot` event whenever the zone's weights change, and only then, "
					+ "instead of upsert and remove events", example = "az-1") String zone,
			@RequestHeader(name = LAST_EVENT_ID, required = false) @Parameter(in = ParameterIn.HEADER,
					description = "The last event id received, to resume after it") String lastEventId,
			HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
		String name = ServiceName.of(service).value();
		String caller = ZoneView.parameter(zone);
		open(List.of(name), false, QueryParameters.subscriber(subscriber), QueryParameters.resumeOne(name, lastEventId),
				caller, request, response);
	}

	@GetMapping("/v1/watch")
	@Operation(operationId = "watchServices", summary = "Watch several services in one stream (server-sent events)",
			description = """
					Events as for one service; every payload carries its `service`, and there is one `snapshot` per service. \
					The `id:` of every event is the position of the whole stream: `service:revision` pairs for each service \
					delivered so far, sorted by service and comma-separated (`orders:17,payments:42`). Send it back verbatim \
					as Last-Event-ID to resume every service exactly; a service missing from it starts with a snapshot. A \
					service that is not registered is watched as an empty one, as in a stream of one service. With \
					`zone`, each service is sent as that zone's view, as on a stream of one service: a `snapshot` of \
					the service when the stream opens or resumes, and another only when the zone's weights of that \
					service change.""")
	@ApiResponse(responseCode = "200", description = "The event stream",
			headers = @Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")),
			content = @Content(mediaType = "text/event-stream", schema = @Schema(type = "string")))
	@ApiResponse(responseCode = "503",
			description = "The node serves its maximum of watchers, or the token holds its maximum of open streams on "
					+ "this node; retry after Retry-After, here or on another node",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = Problem.class)))
	void watchMany(
			@RequestParam(name = "service",
					required = false) @Parameter(description = "A service to watch; repeat for each (1 to "
							+ MAX_SERVICES + ")") List<String> services,
			@RequestParam(required = false) @Parameter(
					description = "Name this subscriber to have its progress tracked") String subscriber,
			@RequestParam(required = false) @Parameter(description = "The caller's zone: each service is sent as "
					+ "that zone's view (docs/locality.md), a `snapshot` event whenever the zone's weights of the "
					+ "service change, and only then, instead of upsert and remove events",
					example = "az-1") String zone,
			@RequestHeader(name = LAST_EVENT_ID, required = false) @Parameter(in = ParameterIn.HEADER,
					description = "The last event id received, to resume after it") String lastEventId,
			HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
		String caller = ZoneView.parameter(zone);
		open(serviceNames(services), true, QueryParameters.subscriber(subscriber),
				QueryParameters.resumeMany(lastEventId), caller, request, response);
	}

	private static List<String> serviceNames(List<String> services) {
		if (services == null || services.isEmpty()) {
			throw new BadParameterException("service", "name at least one service to watch: ?service=a&service=b");
		}
		TreeSet<String> names = new TreeSet<>();
		for (String service : services) {
			try {
				names.add(ServiceName.of(service).value());
			}
			catch (RuntimeException ex) {
				throw new BadParameterException("service", ex.getMessage());
			}
		}
		if (names.size() > MAX_SERVICES) {
			throw new BadParameterException("service",
					"a stream may watch at most %d services; got %d".formatted(MAX_SERVICES, names.size()));
		}
		return new ArrayList<>(names);
	}

	private void open(List<String> services, boolean multiplexed, String subscriber, Map<String, Position> resumeFrom,
			String zone, HttpServletRequest request, HttpServletResponse response)
			throws IOException, ServletException {
		if (HttpMethod.HEAD.matches(request.getMethod())) {
			// The headers a stream would have, and no stream to send nothing on.
			response.setStatus(HttpServletResponse.SC_OK);
			streamHeaders(response);
			return;
		}
		String token = request.getUserPrincipal().getName();
		Runnable place = places.take(token);
		List<Runnable> disconnects = subscriber == null ? List.of()
				: services.stream()
					.map(service -> subscribers.connect(service, subscriber, SubscriberProtocol.SSE, zone))
					.toList();
		Watcher watcher = new Watcher(services, multiplexed, subscriber, resumeFrom, settings.queueCapacity(),
				System.nanoTime() + maxAgeNanos(), token, zone, closed -> {
					follower.closed(closed);
					disconnects.forEach(Runnable::run);
					place.run();
				});
		try {
			await(follower.open(watcher));
			// The connection goes to the stream (see StreamConnection); the container
			// sends these headers, then puts its request processor back for other
			// requests.
			StreamConnection connection = request.upgrade(StreamConnection.class);
			response.setStatus(HttpServletResponse.SC_OK);
			streamHeaders(response);
			// The frames come framed as chunks; the connection's end ends an HTTP/1.0
			// body.
			boolean chunked = !"HTTP/1.0".equals(request.getProtocol());
			if (chunked) {
				response.setHeader(HttpHeaders.TRANSFER_ENCODING, "chunked");
			}
			response.setHeader(HttpHeaders.CONNECTION, "close");
			connection.attach(watcher, chunked);
			// Sent now: a response not yet sent when the request ends is given the
			// length of what was written, none.
			response.flushBuffer();
		}
		catch (RuntimeException | IOException | ServletException ex) {
			watcher.close();
			throw ex;
		}
	}

	private void streamHeaders(HttpServletResponse response) {
		response.setContentType("text/event-stream;charset=UTF-8");
		response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
		// nginx and similar proxies must pass each event on at once.
		response.setHeader("X-Accel-Buffering", "no");
		if (!reachability.reachable()) {
			response.setHeader(Headers.STALE, "true");
		}
	}

	private static void await(CompletableFuture<Void> opened) {
		try {
			opened.get(5, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new OverloadedException("the node could not open the stream in time; retry later");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new OverloadedException("the node is stopping");
		}
	}

	private long maxAgeNanos() {
		long jitter = settings.maxAgeJitter().toNanos();
		long offset = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(-jitter, jitter + 1);
		return Math.max(TimeUnit.SECONDS.toNanos(1), settings.maxAge().toNanos() + offset);
	}

}
