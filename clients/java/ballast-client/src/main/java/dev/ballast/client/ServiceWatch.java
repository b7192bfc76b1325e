package dev.ballast.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.random.RandomGenerator;

/**
 * Watches one or more services of a Ballast registry over server-sent events and keeps
 * each one's current instances.
 *
 * <p>
 * The watch runs on a daemon thread of its own from {@link #start()} until
 * {@link #close()}. It resumes after every disconnect with the last event id it received,
 * so the registry sends only what was missed or a fresh snapshot; it reconnects promptly
 * when the registry asks to, and otherwise after a delay that starts at 100 ms (or the
 * registry's {@code retry:}), doubles up to 10 s with ±50% jitter, is at least the
 * registry's {@code Retry-After} on a 503, and starts again from the bottom after a
 * stream that delivered events. A stream on which nothing arrives, not even a keepalive,
 * for the idle timeout is taken for dead and reopened.
 *
 * <p>
 * Instance records that do not match the wire contract exactly, above all weights that
 * are not JSON integers from 0 to 10000, are logged and skipped, never applied. With a
 * subscriber name, the watch acknowledges the latest revision applied of each service, at
 * most one request in flight per service and none more often than the acknowledgement
 * interval.
 *
 * <pre>{@code
 * try (ServiceWatch watch = ServiceWatch.builder(URI.create("http://registry:8080"), HttpClient.newHttpClient())
 * 	.services("payments")
 * 	.subscriber("checkout")
 * 	.zone("eu-1a")
 * 	.balanced()
 * 	.build()) {
 * 	watch.start();
 * 	Optional<WatchedInstance> target = watch.balancer("payments").pick();
 * }
 * }</pre>
 */
public final class ServiceWatch implements AutoCloseable {

	/** How long to wait for a watch's response headers unless configured otherwise. */
	public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * How long a stream may stay silent unless configured otherwise: three times the
	 * registry's default keepalive interval of 15 s.
	 */
	public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(45);

	/** The shortest time between two acknowledgements of a service, by default. */
	public static final Duration DEFAULT_ACK_INTERVAL = Duration.ofMillis(200);

	private static final Duration FIRST_RECONNECT_DELAY = Duration.ofMillis(100);

	private static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(10);

	/** What an instance's zone looks like, as the registry checks it. */
	private static final Pattern ZONE = Pattern.compile("[A-Za-z0-9._-]{1,63}");

	private final WatchedServices services;

	private final ChangeConsumers consumers;

	private final WatchThread thread;

	private ServiceWatch(Builder builder) {
		List<String> names = List.copyOf(builder.services);
		RegistryRequests requests = new RegistryRequests(builder.base, names, builder.subscriber, builder.token,
				builder.connectTimeout, builder.zone);
		ScheduledExecutorService timer = Executors
			.newSingleThreadScheduledExecutor((task) -> daemon("ballast-watch-timer", task));
		this.consumers = new ChangeConsumers(names, builder.balanced, builder.listener, builder.client, requests,
				builder.subscriber, timer, builder.ackInterval);
		this.services = new WatchedServices(names, this.consumers::applied);
		WatchLoop loop = new WatchLoop(builder.client, requests, new ChangeEvents(this.services),
				new Backoff(FIRST_RECONNECT_DELAY, MAX_RECONNECT_DELAY, RandomGenerator.getDefault()), timer,
				builder.idleTimeout);
		this.thread = new WatchThread("ballast-watch-" + String.join(",", names), loop, timer);
	}

	/**
	 * Begins a watch of {@code base}, the registry's base URI such as
	 * {@code http://registry:8080}, through {@code client}; the client's own settings
	 * (proxy, TLS, HTTP version) apply to every request.
	 */
	public static Builder builder(URI base, HttpClient client) {
		return new Builder(base, client);
	}

	/**
	 * Starts watching on a daemon thread of its own.
	 * @throws IllegalStateException if the watch was already started or closed
	 */
	public void start() {
		thread.start();
	}

	/**
	 * The current instances of a watched service, ordered by id.
	 * @return the instances, empty until the first snapshot of the service arrived
	 * @throws IllegalArgumentException if the service is not watched
	 */
	public List<WatchedInstance> instances(String service) {
		return service(service).map(WatchedService::instances).orElse(List.of());
	}

	/**
	 * The last revision of a watched service this watch applied.
	 * @return the revision, empty until the first snapshot of the service arrived
	 * @throws IllegalArgumentException if the service is not watched
	 */
	public OptionalLong revision(String service) {
		return service(service).map((state) -> OptionalLong.of(state.revision())).orElse(OptionalLong.empty());
	}

	/**
	 * A watched service as of the last revision applied, instances and revision together.
	 * @return the service, empty until its first snapshot arrived
	 * @throws IllegalArgumentException if the service is not watched
	 */
	public Optional<WatchedService> service(String service) {
		return services.get(watched(service));
	}

	/**
	 * The balancer this watch keeps up to date with the instances of a service.
	 * @throws IllegalStateException if the watch was built without
	 * {@link Builder#balanced()}
	 * @throws IllegalArgumentException if the service is not watched
	 */
	public SmoothWeightedBalancer balancer(String service) {
		watched(service);
		if (!consumers.balanced()) {
			throw new IllegalStateException("this watch keeps no balancers; build it with balanced()");
		}
		return consumers.balancer(service);
	}

	/**
	 * Whether the watch's stream is open now. Between a disconnect and the reconnect it
	 * is not, and the services keep the last state applied.
	 */
	public boolean connected() {
		return thread.connected();
	}

	/**
	 * Stops watching: closes the stream and waits up to 5 s for the watch's thread to
	 * end. Acknowledgements not yet sent are dropped. The HTTP client stays open.
	 */
	@Override
	public void close() {
		thread.close();
	}

	/** An unstarted daemon thread: a watch never keeps the JVM alive. */
	static Thread daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	private String watched(String service) {
		if (!services.watches(service)) {
			throw new IllegalArgumentException(
					"service " + service + " is not watched; this watch follows " + services.names());
		}
		return service;
	}

	/** Collects what a {@link ServiceWatch} needs; only the services are required. */
	public static final class Builder {

		private final URI base;

		private final HttpClient client;

		private final LinkedHashSet<String> services = new LinkedHashSet<>();

		private String subscriber;

		private String token;

		private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;

		private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

		private Duration ackInterval = DEFAULT_ACK_INTERVAL;

		private Consumer<WatchedService> listener = (service) -> {
		};

		private boolean balanced;

		private String zone;

		private Builder(URI base, HttpClient client) {
			this.base = Objects.requireNonNull(base, "base");
			this.client = Objects.requireNonNull(client, "client");
		}

		/**
		 * Adds services to watch. One service is watched on its own stream; several share
		 * one multiplexed stream.
		 */
		public Builder services(String... services) {
			for (String service : services) {
				this.services.add(requireText(service, "service"));
			}
			return this;
		}

		/**
		 * Names this client to the registry, which then expects acknowledgements of the
		 * revisions applied; without a name the watch is anonymous and never
		 * acknowledges.
		 */
		public Builder subscriber(String subscriber) {
			this.subscriber = requireText(subscriber, "subscriber");
			return this;
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
		 * How long to wait for the response headers of a watch or an acknowledgement,
		 * connecting included; 10 s by default.
		 */
		public Builder connectTimeout(Duration connectTimeout) {
			this.connectTimeout = requirePositive(connectTimeout, "connectTimeout");
			return this;
		}

		/**
		 * How long an open stream may stay silent, without even a keepalive, before it is
		 * taken for dead and reopened; 45 s by default. Keep it well above the registry's
		 * keepalive interval.
		 */
		public Builder idleTimeout(Duration idleTimeout) {
			this.idleTimeout = requirePositive(idleTimeout, "idleTimeout");
			return this;
		}

		/**
		 * The shortest time between two acknowledgements of a service; 200 ms by default.
		 */
		public Builder ackInterval(Duration ackInterval) {
			this.ackInterval = requirePositive(ackInterval, "ackInterval");
			return this;
		}

		/**
		 * Called on the watch's thread after each change is applied, with the service as
		 * changed; it should return quickly, as the stream waits for it.
		 */
		public Builder listener(Consumer<WatchedService> listener) {
			this.listener = Objects.requireNonNull(listener, "listener");
			return this;
		}

		/**
		 * Names the zone this client runs in, to receive each service as a balancer in
		 * that zone must weigh it: local first, and at most the service's
		 * {@code maxCrossZonePercent} of the traffic to other zones (the registry's
		 * docs/locality.md). Each instance's {@code effectiveWeight} and {@code routable}
		 * are then the zone's, and a service changes whenever the zone's weight of one of
		 * its instances moves, and only then. A service without a locality policy, or
		 * without an instance in the zone, is seen as without a zone.
		 * @throws IllegalArgumentException unless the zone is 1 to 63 of
		 * {@code A-Z a-z 0-9 . _ -}, as an instance's zone is
		 */
		public Builder zone(String zone) {
			if (zone == null || !ZONE.matcher(zone).matches()) {
				throw new IllegalArgumentException(
						"zone must be 1 to 63 of A-Z a-z 0-9 . _ -, as an instance's zone; got "
								+ ((zone == null) ? "null" : "\"" + zone + "\""));
			}
			this.zone = zone;
			return this;
		}

		/**
		 * Keeps a {@link SmoothWeightedBalancer} per service, fed on every change, for
		 * {@link ServiceWatch#balancer(String)}.
		 */
		public Builder balanced() {
			this.balanced = true;
			return this;
		}

		/**
		 * Builds the watch, which connects to nothing until {@link ServiceWatch#start()}.
		 * @throws IllegalStateException if no service was given
		 */
		public ServiceWatch build() {
			if (services.isEmpty()) {
				throw new IllegalStateException("a watch needs at least one service");
			}
			return new ServiceWatch(this);
		}

		private static String requireText(String value, String name) {
			if (value == null || value.isBlank()) {
				throw new IllegalArgumentException(
						name + " must be a non-blank string; got " + ((value == null) ? "null" : "\"" + value + "\""));
			}
			return value;
		}

		private static Duration requirePositive(Duration value, String name) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new IllegalArgumentException(name + " must be a positive duration; got " + value);
			}
			return value;
		}

	}

}
