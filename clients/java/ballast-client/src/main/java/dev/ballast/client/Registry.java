package dev.ballast.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The calls an instance makes about itself: register, heartbeat, drain, deregister, and
 * the reads that follow a drain. Each call waits at most the timeout for its answer (a
 * blocking read its wait on top) and throws a {@link RegistryException} when the registry
 * refuses or cannot be reached; nothing is retried here, so that the caller decides how
 * to wait. Safe for use by several threads.
 *
 * <pre>{@code
 * Registry registry = Registry.builder(URI.create("http://registry:8080"), HttpClient.newHttpClient())
 * 	.token(System.getenv("BALLAST_TOKEN"))
 * 	.build();
 * registry.register(new InstanceRegistration("payments", "10.0.0.5:8080", "10.0.0.5", 8080, 100, "eu-1a",
 * 		Map.of(), List.of(), 30));
 * registry.heartbeat("payments", "10.0.0.5:8080"); // every few seconds
 * }</pre>
 */
public final class Registry {

	/** How long a call waits for its answer unless configured otherwise. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

	private final URI base;

	private final HttpClient client;

	private final String token;

	private final Duration timeout;

	private Registry(Builder builder) {
		this.base = builder.base;
		this.client = builder.client;
		this.token = builder.token;
		this.timeout = builder.timeout;
	}

	/**
	 * Begins a registry client for {@code base}, such as {@code http://registry:8080},
	 * calling through {@code client}, whose own settings (proxy, TLS) apply.
	 */
	public static Builder builder(URI base, HttpClient client) {
		return new Builder(base, client);
	}

	/**
	 * Registers the instance, or replaces its registration.
	 * @return the instance as the registry now holds it
	 */
	public WatchedInstance register(InstanceRegistration registration) {
		HttpRequest request = request(instancePath(registration.service(), registration.id()), timeout)
			.header("Content-Type", "application/json")
			.PUT(HttpRequest.BodyPublishers.ofString(registration.toJson()))
			.build();
		return WatchedInstance.fromJson(Json.read(send(request, "registering " + registration.id()).body()));
	}

	/**
	 * Renews the instance's lease.
	 * @return the answer, or empty when the registry does not know the instance (it
	 * expired, or was removed): register it again
	 */
	public Optional<Heartbeat> heartbeat(String service, String id) {
		HttpRequest request = request(instancePath(service, id) + "/heartbeat", timeout)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = sendAllowing404(request, "the heartbeat of " + id);
		return (response.statusCode() == 404) ? Optional.empty()
				: Optional.of(Heartbeat.fromJson(Json.read(response.body())));
	}

	/**
	 * Removes the instance from the registry.
	 * @return whether it was registered
	 */
	public boolean deregister(String service, String id) {
		HttpRequest request = request(instancePath(service, id), timeout).DELETE().build();
		return sendAllowing404(request, "deregistering " + id).statusCode() != 404;
	}

	/**
	 * Asks the registry to drain the instance: its effective weight ramps to 0 over
	 * {@code ramp} (zero: at once), then it turns {@code DRAINED} once every live
	 * subscriber acknowledged weight 0. The registry refuses with 409 when the drain
	 * would take more of the service out of rotation than its guard allows.
	 * @return the instance, {@code DRAINING} (or already {@code DRAINED})
	 */
	public WatchedInstance drain(String service, String id, Duration ramp) {
		HttpRequest request = request(instancePath(service, id) + "/drain", timeout)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"durationSeconds\":" + ramp.toSeconds() + "}"))
			.build();
		return WatchedInstance.fromJson(Json.read(send(request, "draining " + id).body()));
	}

	/**
	 * The names of the registered services ({@code GET /v1/services}, which needs a
	 * reader's token).
	 */
	public List<String> services() {
		HttpRequest request = request("/v1/services", timeout).GET().build();
		List<String> names = new ArrayList<>();
		for (Object service : asList(Json.read(send(request, "listing the services").body()))) {
			names.add(JsonFields.of(service).string("name"));
		}
		return names;
	}

	private static List<?> asList(Object json) {
		if (!(json instanceof List<?> list)) {
			throw new IllegalArgumentException("expected a JSON array; got " + JsonFields.describe(json));
		}
		return list;
	}

	/**
	 * Waits until the instance reaches {@code mode} (such as {@code DRAINED}), with one
	 * blocking read per change of it, for at most {@code timeout}.
	 * @return the instance in that mode, or empty when it did not get there in time or
	 * was removed
	 */
	public Optional<WatchedInstance> awaitMode(String service, String id, String mode, Duration timeout) {
		Instant deadline = Instant.now().plus(timeout);
		Optional<WatchedInstance> instance = read(service, id, -1, Duration.ZERO);
		while (instance.isPresent() && !instance.get().mode().equals(mode)) {
			Duration left = Duration.between(Instant.now(), deadline);
			if (left.isNegative() || left.isZero()) {
				return Optional.empty();
			}
			instance = read(service, id, instance.get().revision(), left);
		}
		return instance;
	}

	/**
	 * Waits until every subscriber of the service the registry lists (live within its
	 * {@code ballast.watch.subscriber-ttl}) acknowledged the service's revision as it is
	 * now, such as the removal just made, looking every 100 ms for at most
	 * {@code timeout}.
	 * @return whether they all did in time
	 */
	public boolean awaitAcknowledged(String service, Duration timeout) throws InterruptedException {
		Instant deadline = Instant.now().plus(timeout);
		HttpRequest request = request("/v1/services/" + RegistryRequests.segment(service) + "/subscribers",
				this.timeout)
			.GET()
			.build();
		long revision = -1;
		while (true) {
			JsonFields answer = JsonFields.of(Json.read(send(request, "reading the subscribers of " + service).body()));
			if (revision < 0) {
				revision = answer.longInteger("revision", 0, Long.MAX_VALUE);
			}
			boolean all = true;
			for (Object subscriber : answer.array("subscribers")) {
				all &= JsonFields.of(subscriber).longInteger("ackedRevision", 0, Long.MAX_VALUE) >= revision;
			}
			if (all) {
				return true;
			}
			if (Instant.now().isAfter(deadline)) {
				return false;
			}
			Thread.sleep(100);
		}
	}

	/**
	 * The instance as the registry holds it now, or, with an {@code index} of 0 or more,
	 * as soon as it changed after that revision (within {@code wait}).
	 */
	private Optional<WatchedInstance> read(String service, String id, long index, Duration wait) {
		String path = instancePath(service, id);
		Duration answerWithin = timeout;
		if (index >= 0) {
			long millis = Math.max(1, wait.toMillis());
			path += "?index=" + index + "&wait=" + millis + "ms";
			answerWithin = timeout.plus(wait);
		}
		HttpResponse<String> response = sendAllowing404(request(path, answerWithin).GET().build(), "reading " + id);
		return (response.statusCode() == 404) ? Optional.empty()
				: Optional.of(WatchedInstance.fromJson(Json.read(response.body())));
	}

	private HttpResponse<String> sendAllowing404(HttpRequest request, String what) {
		return send(request, what, true);
	}

	private HttpResponse<String> send(HttpRequest request, String what) {
		return send(request, what, false);
	}

	private HttpResponse<String> send(HttpRequest request, String what, boolean allow404) {
		HttpResponse<String> response;
		try {
			response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new RegistryException(0, what + " failed: the registry at " + base + " did not answer: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RegistryException(0, what + " was interrupted", ex);
		}
		int status = response.statusCode();
		if (status / 100 == 2 || (allow404 && status == 404)) {
			return response;
		}
		throw new RegistryException(status, what + " failed: the registry answered " + status + detail(response.body()),
				null);
	}

	/** The problem's detail (RFC 9457), or nothing when the answer has none. */
	private static String detail(String body) {
		try {
			Object detail = JsonFields.of(Json.read(body)).get("detail");
			return (detail instanceof String text) ? ": " + text : "";
		}
		catch (IllegalArgumentException ex) {
			return "";
		}
	}

	private HttpRequest.Builder request(String path, Duration answerWithin) {
		String prefix = base.toString();
		URI uri = URI.create((prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix) + path);
		HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(answerWithin);
		if (token != null) {
			request.header("Authorization", "Bearer " + token);
		}
		return request;
	}

	private static String instancePath(String service, String id) {
		return "/v1/services/" + RegistryRequests.segment(service) + "/instances/" + RegistryRequests.segment(id);
	}

	/**
	 * Collects what a {@link Registry} needs; only the base URI and client are required.
	 */
	public static final class Builder {

		private final URI base;

		private final HttpClient client;

		private String token;

		private Duration timeout = DEFAULT_TIMEOUT;

		private Builder(URI base, HttpClient client) {
			this.base = Objects.requireNonNull(base, "base");
			this.client = Objects.requireNonNull(client, "client");
		}

		/**
		 * Sends {@code Authorization: Bearer <token>} with every request.
		 * @throws IllegalArgumentException unless the token is printable ASCII without
		 * spaces, as a bearer token is
		 */
		public Builder token(String token) {
			this.token = RegistryRequests.requireToken(token);
			return this;
		}

		/**
		 * How long each call waits for its answer, connecting included; 5 s by default.
		 */
		public Builder timeout(Duration timeout) {
			if (timeout == null || timeout.isNegative() || timeout.isZero()) {
				throw new IllegalArgumentException("timeout must be a positive duration; got " + timeout);
			}
			this.timeout = timeout;
			return this;
		}

		public Registry build() {
			return new Registry(this);
		}

	}

}
