package dev.ballast.spring;

import java.util.List;

import reactor.core.publisher.Flux;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;

/**
 * The instances of one service that may receive calls, fed by its watch stream: a new
 * list as soon as the registry pushes a change (no polling, no cache TTL), and none of
 * them at effective weight 0. In the zone's view when
 * {@code spring.cloud.loadbalancer.zone} is set.
 */
final class BallastServiceInstanceListSupplier implements ServiceInstanceListSupplier {

	private final String serviceId;

	private final BallastWatches watches;

	BallastServiceInstanceListSupplier(String serviceId, BallastWatches watches) {
		this.serviceId = serviceId;
		this.watches = watches;
	}

	@Override
	public String getServiceId() {
		return serviceId;
	}

	@Override
	public Flux<List<ServiceInstance>> get() {
		return watches.lists(serviceId);
	}

}
