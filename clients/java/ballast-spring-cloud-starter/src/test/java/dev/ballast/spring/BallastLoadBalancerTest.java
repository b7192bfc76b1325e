package dev.ballast.spring;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.client.WatchedInstance;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.Response;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;

import static org.assertj.core.api.Assertions.assertThat;

class BallastLoadBalancerTest {

	private final Sinks.Many<List<ServiceInstance>> lists = Sinks.many().replay().latest();

	private final BallastLoadBalancer balancer = new BallastLoadBalancer(new ServiceInstanceListSupplier() {

		@Override
		public String getServiceId() {
			return "backend";
		}

		@Override
		public Flux<List<ServiceInstance>> get() {
			return lists.asFlux();
		}

	}, Duration.ofMillis(200));

	@Test
	void routesEachInstanceExactlyItsShare() {
		lists.tryEmitNext(List.of(instance("a", 300), instance("b", 200), instance("c", 100)));

		assertThat(picks(6000)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 3000, "b", 2000, "c", 1000));
	}

	@Test
	void leavesAnInstanceFromTheNextPickOnOnceANewListArrives() {
		lists.tryEmitNext(List.of(instance("a", 300), instance("b", 200), instance("c", 100)));
		picks(7);

		lists.tryEmitNext(List.of(instance("a", 300), instance("b", 200), instance("c", 0)));

		assertThat(picks(500)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 300, "b", 200));
	}

	@Test
	void answersNoInstanceWhenNoneHasWeightOrNoListArrivedInTime() {
		assertThat(balancer.choose().block(Duration.ofSeconds(5)).hasServer()).isFalse();

		lists.tryEmitNext(List.of(instance("a", 0)));

		assertThat(balancer.choose().block(Duration.ofSeconds(5)).hasServer()).isFalse();
	}

	private Map<String, Integer> picks(int times) {
		Map<String, Integer> counts = new HashMap<>();
		for (int i = 0; i < times; i++) {
			Response<ServiceInstance> response = balancer.choose().block(Duration.ofSeconds(5));
			counts.merge(response.getServer().getInstanceId(), 1, Integer::sum);
		}
		return counts;
	}

	private static ServiceInstance instance(String id, int weight) {
		return new BallastServiceInstance(new WatchedInstance("backend", id, "127.0.0.1", 9000, null, weight, weight,
				weight > 0, "SERVING", "PASSING", Map.of(), 30, Instant.EPOCH, 1));
	}

}
