package dev.ballast.example.starter;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import dev.ballast.spring.BallastServiceInstance;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.event.EventListener;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * When each revision of the backend service reached the list the load balancer picks
 * from, so that the end-to-end check can measure how long a weight change takes from the
 * registry's answer to the caller's balancer: {@code GET /applied?revision=R} answers the
 * time (microseconds since the epoch) the first list at revision R or later arrived.
 */
@RestController
class AppliedLists {

	private static final Duration LONGEST_WAIT = Duration.ofSeconds(5);

	private final LoadBalancerClientFactory balancers;

	/** Revision of a list (its newest instance) to when it arrived, in microseconds. */
	private final ConcurrentSkipListMap<Long, Long> arrivals = new ConcurrentSkipListMap<>();

	AppliedLists(LoadBalancerClientFactory balancers) {
		this.balancers = balancers;
	}

	@EventListener(ApplicationReadyEvent.class)
	void follow() {
		ServiceInstanceListSupplier lists = balancers.getInstance("backend", ServiceInstanceListSupplier.class);
		lists.get().subscribe(this::arrived);
	}

	private void arrived(List<ServiceInstance> list) {
		long micros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
		long revision = list.stream()
			.filter(BallastServiceInstance.class::isInstance)
			.mapToLong((instance) -> ((BallastServiceInstance) instance).instance().revision())
			.max()
			.orElse(0);
		arrivals.putIfAbsent(revision, micros);
		synchronized (this) {
			notifyAll();
		}
	}

	@GetMapping("/applied")
	synchronized long applied(@RequestParam long revision) throws InterruptedException {
		long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
		Map.Entry<Long, Long> reached;
		while ((reached = arrivals.ceilingEntry(revision)) == null) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				throw new ResponseStatusException(HttpStatus.GATEWAY_TIMEOUT,
						"revision " + revision + " did not arrive within " + LONGEST_WAIT);
			}
			wait(Math.max(1, left / 1_000_000));
		}
		return reached.getValue();
	}

}
