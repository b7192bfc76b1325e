package dev.ballast.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.client.SmoothWeightedBalancer;
import dev.ballast.client.WatchedInstance;
import reactor.core.publisher.Mono;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.DefaultResponse;
import org.springframework.cloud.client.loadbalancer.EmptyResponse;
import org.springframework.cloud.client.loadbalancer.Request;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;

/**
 * Smooth weighted round robin (nginx's) over the effective weights of the list its
 * supplier holds now: each instance receives exactly its share, interleaved, and an
 * instance at effective weight 0 is never picked (the supplier leaves it out, and the
 * balancer would skip it). A new list replaces the balancer's instances before the next
 * pick; instances that stay keep their place in the rotation.
 */
final class BallastLoadBalancer implements ReactorServiceInstanceLoadBalancer {

	private final ServiceInstanceListSupplier supplier;

	private final Duration firstListWait;

	private final SmoothWeightedBalancer balancer = new SmoothWeightedBalancer();

	/**
	 * The list the balancer holds; compared by identity, as every change is a new list.
	 */
	private List<ServiceInstance> applied;

	private Map<String, ServiceInstance> byId = Map.of();

	BallastLoadBalancer(ServiceInstanceListSupplier supplier, Duration firstListWait) {
		this.supplier = supplier;
		this.firstListWait = firstListWait;
	}

	@Override
	public Mono<Response<ServiceInstance>> choose(Request request) {
		return supplier.get(request)
			.next()
			.timeout(firstListWait, Mono.empty())
			.map(this::pick)
			.defaultIfEmpty(new EmptyResponse());
	}

	private synchronized Response<ServiceInstance> pick(List<ServiceInstance> instances) {
		if (instances != applied) {
			List<WatchedInstance> watched = new ArrayList<>(instances.size());
			Map<String, ServiceInstance> ids = new HashMap<>();
			for (ServiceInstance instance : instances) {
				if (instance instanceof BallastServiceInstance ballast) {
					watched.add(ballast.instance());
					ids.put(ballast.getInstanceId(), ballast);
				}
			}
			balancer.update(watched);
			applied = instances;
			byId = ids;
		}
		return balancer.pick()
			.<Response<ServiceInstance>>map((instance) -> new DefaultResponse(byId.get(instance.id())))
			.orElseGet(EmptyResponse::new);
	}

}
