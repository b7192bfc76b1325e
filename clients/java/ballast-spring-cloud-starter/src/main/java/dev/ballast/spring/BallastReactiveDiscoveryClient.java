package dev.ballast.spring;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.ReactiveDiscoveryClient;

/**
 * Spring Cloud's {@link ReactiveDiscoveryClient} on Ballast: the same answers as
 * {@link BallastDiscoveryClient}, off the caller's thread.
 */
final class BallastReactiveDiscoveryClient implements ReactiveDiscoveryClient {

	private final BallastWatches watches;

	private final BallastDiscoveryClient blocking;

	BallastReactiveDiscoveryClient(BallastWatches watches, BallastDiscoveryClient blocking) {
		this.watches = watches;
		this.blocking = blocking;
	}

	@Override
	public String description() {
		return "Ballast (reactive)";
	}

	@Override
	public Flux<ServiceInstance> getInstances(String serviceId) {
		return watches.current(serviceId).flatMapMany(Flux::fromIterable);
	}

	@Override
	public Flux<String> getServices() {
		return Flux.defer(() -> Flux.fromIterable(blocking.getServices())).subscribeOn(Schedulers.boundedElastic());
	}

}
