package dev.ballast.watch;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import dev.ballast.database.Reachability;
import dev.ballast.instance.Answer;
import dev.ballast.instance.Headers;
import dev.ballast.instance.InstanceId;
import dev.ballast.instance.InstanceList;
import dev.ballast.instance.InstanceQueries;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.ServiceName;
import dev.ballast.web.NotFoundException;
import dev.ballast.web.OverloadedException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Reads of a service's instances, plain or blocking. A blocking query that has nothing
 * new to answer waits on the feed without holding a thread; it is answered from the
 * node's applied state as soon as the revision passes the client's index, or with the
 * unchanged state after its wait.
 */
@RestController
@RequestMapping("/v1/services/{service}/instances")
@Tag(name = "Instances")
class BlockingQueryController {

	private final InstanceQueries queries;

	private final Feed feed;

	private final WatcherCap cap;

	private final Subscribers subscribers;

	private final WatchSettings settings;

	private final Reachability reachability;

	BlockingQueryController(InstanceQueries queries, Feed feed, WatcherCap cap, Subscribers subscribers,
			WatchSettings settings, Reachability reachability) {
		this.reachability = reachability;
		this.queries = queries;
		this.feed = feed;
		this.cap = cap;
		this.subscribers = subscribers;
		this.settings = settings;
	}

	@GetMapping
	@Operation(summary = "List a service's instances (optionally a blocking query)", description = """
			All instances with the revision they are current at (also in X-Ballast-Index). With `index`, a blocking \
			query: answered as soon as the service's revision is greater than `index`, or after `wait` with the \
			unchanged state. Clients pass the X-Ballast-Index they received as the next `index`. A named `subscriber` \
			acknowledges `index` as applied.""")
	@ApiResponse(responseCode = "200", description = "The instances, sorted by id", headers = {
			@Header(name = Headers.INDEX, description = "The service revision", schema = @Schema(type = "integer")),
			@Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
					schema = @Schema(type = "boolean")) })
	@ApiResponse(responseCode = "503",
			description = "The node serves its maximum of watchers, or the database is unavailable; "
					+ "retry after Retry-After",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = dev.ballast.web.Problem.class)))
	DeferredResult<ResponseEntity<InstanceList>> list(@PathVariable String service,
			@RequestParam(required = false) @Parameter(
					description = "Blocking query: wait until the revision is greater than this") String index,
			@RequestParam(required = false) @Parameter(
					description = "How long a blocking query may wait: 30s, 5m, 1500ms (default 60s, at most 300s; "
							+ "a small random jitter is added)") String wait,
			@RequestParam(required = false) @Parameter(description = "Name of the polling subscriber: its index "
					+ "is recorded as the revision it has applied") String subscriber) {
		ServiceName name = ServiceName.of(service);
		Long after = QueryParameters.index(index);
		Duration timeout = QueryParameters.wait(wait, settings.defaultWait(), settings.maxWait());
		String polling = QueryParameters.subscriber(subscriber);
		Answer<InstanceList> answer = queries.instances(name);
		InstanceList now = answer.value();
		if (polling != null && after != null && after <= now.revision()) {
			subscribers.acked(name.value(), polling, after);
		}
		DeferredResult<ResponseEntity<InstanceList>> result = new DeferredResult<>(jittered(timeout));
		// An index ahead of the revision is from another database or a reset: answer at
		// once with the real one, as Consul does, rather than wait for nothing. During an
		// outage it more likely comes from a node that read further: the query waits.
		if (after == null || after < now.revision() || (after > now.revision() && !answer.stale())) {
			result.setResult(listed(name, polling, now, answer.stale()));
			return result;
		}
		Runnable disconnect = polling == null ? () -> {
		} : subscribers.connect(name.value(), polling);
		// During an outage the query still waits, on memory: answered at once, stale, a
		// herd of pollers would ask again at once.
		await(new Waiter(name.value(), state -> state.revision() > now.revision(),
				state -> result.setResult(listed(name, polling, state, false)), result),
				() -> listed(name, polling, now, !reachability.reachable()), disconnect);
		return result;
	}

	@GetMapping("/{id}")
	@Operation(summary = "Get one instance (optionally a blocking query)", description = """
			The ETag (and X-Ballast-Index) is the revision of the instance's last change. With `index`, a blocking \
			query: answered as soon as the instance changes after that revision (404 if it is removed), or after \
			`wait` unchanged. An instance's preStop hook can wait this way for its drain to complete.""")
	@ApiResponse(responseCode = "200", description = "The instance",
			headers = { @Header(name = HttpHeaders.ETAG, description = "Revision of the last change, quoted"),
					@Header(name = Headers.INDEX, description = "Revision of the last change",
							schema = @Schema(type = "integer")),
					@Header(name = Headers.STALE, description = Headers.STALE_DESCRIPTION,
							schema = @Schema(type = "boolean")) })
	@ApiResponse(responseCode = "503",
			description = "The node serves its maximum of watchers, or the database is unavailable; "
					+ "retry after Retry-After",
			content = @Content(mediaType = "application/problem+json",
					schema = @Schema(implementation = dev.ballast.web.Problem.class)))
	DeferredResult<ResponseEntity<InstanceView>> get(@PathVariable String service, @PathVariable String id,
			@RequestParam(required = false) @Parameter(
					description = "Blocking query: wait until the instance changes after this revision") String index,
			@RequestParam(required = false) @Parameter(
					description = "How long a blocking query may wait (default 60s, at most 300s)") String wait) {
		ServiceName name = ServiceName.of(service);
		InstanceId instanceId = InstanceId.of(id);
		Long after = QueryParameters.index(index);
		Duration timeout = QueryParameters.wait(wait, settings.defaultWait(), settings.maxWait());
		Answer<InstanceView> answer = queries.instance(name, instanceId);
		InstanceView now = answer.value();
		DeferredResult<ResponseEntity<InstanceView>> result = new DeferredResult<>(jittered(timeout));
		if (after == null || now.revision() > after) {
			result.setResult(found(now, answer.stale()));
			return result;
		}
		await(new Waiter(name.value(),
				state -> state.revision() > after
						&& find(state, instanceId).map(i -> i.revision() > after).orElse(true),
				state -> find(state, instanceId).ifPresentOrElse(instance -> result.setResult(found(instance, false)),
						() -> result.setErrorResult(new NotFoundException(
								"instance %s of service %s was removed".formatted(instanceId, name)))),
				result), () -> found(now, !reachability.reachable()), () -> {
				});
		return result;
	}

	private <T> void await(Waiter waiter, java.util.function.Supplier<T> unchanged, Runnable disconnect) {
		if (!cap.tryAcquire()) {
			disconnect.run();
			throw new OverloadedException("this node serves its maximum of %d watchers; retry later or on another node"
				.formatted(settings.maxWatchers()));
		}
		@SuppressWarnings("unchecked")
		DeferredResult<T> result = (DeferredResult<T>) waiter.result();
		result.onTimeout(() -> result.setResult(unchanged.get()));
		result.onCompletion(() -> {
			cap.release();
			disconnect.run();
			feed.forget(waiter);
		});
		feed.await(waiter);
	}

	private ResponseEntity<InstanceList> listed(ServiceName name, String subscriber, InstanceList state,
			boolean stale) {
		if (subscriber != null) {
			subscribers.delivered(name.value(), subscriber, state.revision());
		}
		return Headers.ok(stale).header(Headers.INDEX, Long.toString(state.revision())).body(state);
	}

	private static ResponseEntity<InstanceView> found(InstanceView instance, boolean stale) {
		return Headers.ok(stale)
			.eTag("\"" + instance.revision() + "\"")
			.header(Headers.INDEX, Long.toString(instance.revision()))
			.body(instance);
	}

	private static Optional<InstanceView> find(InstanceList state, InstanceId id) {
		return state.instances().stream().filter(instance -> instance.id().equals(id.value())).findFirst();
	}

	/**
	 * Up to a sixteenth more, so that a herd of pollers that started together spreads
	 * out.
	 */
	private static long jittered(Duration wait) {
		long millis = Math.max(1, wait.toMillis());
		return millis + ThreadLocalRandom.current().nextLong(millis / 16 + 1);
	}

}
