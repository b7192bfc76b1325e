package dev.ballast.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.ballast.client.ServiceWatch;
import dev.ballast.client.WatchedInstance;
import dev.ballast.client.WatchedService;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.cloud.client.ServiceInstance;

/**
 * One watch stream per service the application calls, opened on first use and kept open
 * until the application stops: the registry pushes every change, there is no polling and
 * no cache to expire. Each change reaches the service's list (and so its balancer) before
 * the watch acknowledges it, so that once Ballast counts this application's
 * acknowledgement of an instance's weight 0, the application no longer picks it.
 */
final class BallastWatches implements DisposableBean {

	private final URI url;

	private final HttpClient http;

	private final String token;

	private final Supplier<String> subscriber;

	private final String zone;

	private final Duration timeout;

	private final Map<String, Followed> followed = new ConcurrentHashMap<>();

	BallastWatches(URI url, HttpClient http, String token, Supplier<String> subscriber, String zone, Duration timeout) {
		this.url = url;
		this.http = http;
		this.token = token;
		this.subscriber = subscriber;
		this.zone = zone;
		this.timeout = timeout;
	}

	/**
	 * The lists of instances of a service that may receive calls, one per change, the
	 * current one first; nothing until the first snapshot arrived.
	 */
	Flux<List<ServiceInstance>> lists(String service) {
		return follow(service).lists.asFlux();
	}

	/**
	 * The service's instances that may receive calls now, waiting up to the client's
	 * timeout for the first snapshot (then none).
	 */
	Mono<List<ServiceInstance>> current(String service) {
		return lists(service).next().timeout(timeout, Mono.just(List.of()));
	}

	/** What the application follows, for the endpoint and the health indicator. */
	Map<String, Followed> followed() {
		return Map.copyOf(followed);
	}

	String zone() {
		return zone;
	}

	private Followed follow(String service) {
		return followed.computeIfAbsent(service, this::open);
	}

	private Followed open(String service) {
		Sinks.Many<List<ServiceInstance>> lists = Sinks.many().replay().latest();
		ServiceWatch.Builder builder = ServiceWatch.builder(url, http)
			.services(service)
			.subscriber(subscriber.get())
			.connectTimeout(timeout)
			.listener((changed) -> lists.tryEmitNext(routable(changed)));
		if (token != null) {
			builder.token(token);
		}
		if (zone != null) {
			builder.zone(zone);
		}
		ServiceWatch watch = builder.build();
		watch.start();
		return new Followed(service, watch, lists);
	}

	private static List<ServiceInstance> routable(WatchedService service) {
		return service.instances()
			.stream()
			.filter(WatchedInstance::receivesTraffic)
			.<ServiceInstance>map(BallastServiceInstance::new)
			.toList();
	}

	@Override
	public void destroy() {
		followed.values().forEach((service) -> service.watch.close());
	}

	/** One followed service: its watch and the lists it publishes. */
	static final class Followed {

		private final String service;

		private final ServiceWatch watch;

		private final Sinks.Many<List<ServiceInstance>> lists;

		Followed(String service, ServiceWatch watch, Sinks.Many<List<ServiceInstance>> lists) {
			this.service = service;
			this.watch = watch;
			this.lists = lists;
		}

		boolean connected() {
			return watch.connected();
		}

		/** The last revision applied, empty before the first snapshot. */
		Optional<Long> revision() {
			return watch.service(service).map(WatchedService::revision);
		}

		/** Every instance as last applied, those at weight 0 included. */
		List<WatchedInstance> instances() {
			return watch.instances(service);
		}

	}

}
