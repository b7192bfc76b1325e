package dev.ballast.client;

import static dev.ballast.client.Instances.weighted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SmoothWeightedBalancerTest {

	@Test
	void weightsFiveOneOneGiveTheNginxSequence() {
		SmoothWeightedBalancer balancer = balancer(weighted("a", 5), weighted("b", 1), weighted("c", 1));

		assertThat(picks(balancer, 14)).containsExactly("a", "a", "b", "a", "c", "a", "a", "a", "a", "b", "a", "c", "a",
				"a");
	}

	@Test
	void equalWeightsTakeTurns() {
		SmoothWeightedBalancer balancer = balancer(weighted("a", 100), weighted("b", 100), weighted("c", 100));

		assertThat(picks(balancer, 6)).containsExactly("a", "b", "c", "a", "b", "c");
	}

	@Test
	void neverPicksAnInstanceOfWeightZeroOrNotRoutable() {
		SmoothWeightedBalancer balancer = balancer(weighted("drained", 0), weighted("held", 50, false),
				weighted("serving", 1));

		assertThat(picks(balancer, 20)).containsOnly("serving");
	}

	@Test
	void picksNothingFromAnEmptySet() {
		assertThat(new SmoothWeightedBalancer().pick()).isEmpty();
	}

	@Test
	void picksNothingWhenEveryWeightIsZero() {
		assertThat(balancer(weighted("a", 0), weighted("b", 0)).pick()).isEmpty();
	}

	@Test
	void anUpdateKeepsTheRotationOfInstancesThatStay() {
		SmoothWeightedBalancer updated = balancer(weighted("a", 5), weighted("b", 1), weighted("c", 1));
		SmoothWeightedBalancer untouched = balancer(weighted("a", 5), weighted("b", 1), weighted("c", 1));
		picks(updated, 3);
		picks(untouched, 3);

		updated.update(List.of(weighted("a", 5), weighted("b", 1), weighted("c", 1)));

		assertThat(picks(updated, 11)).isEqualTo(picks(untouched, 11));
	}

	@Test
	void anInstanceThatLeavesAndComesBackStartsFromZero() {
		SmoothWeightedBalancer balancer = balancer(weighted("a", 3), weighted("b", 1));
		assertThat(picks(balancer, 2)).containsExactly("a", "a");

		balancer.update(List.of(weighted("b", 1)));
		balancer.update(List.of(weighted("a", 3), weighted("b", 1)));

		// a restarts at 0 and wins its tie with b at 3; with its old -2 it would lose.
		assertThat(picks(balancer, 1)).containsExactly("a");
	}

	@Test
	void picksAsTheNewWeightsSayAfterAnUpdate() {
		SmoothWeightedBalancer balancer = balancer(weighted("a", 1), weighted("b", 1));
		picks(balancer, 3);

		balancer.update(List.of(weighted("a", 0), weighted("b", 1)));

		assertThat(picks(balancer, 5)).containsOnly("b");
	}

	@Test
	void sharesPicksInProportionAcrossThreads() throws Exception {
		SmoothWeightedBalancer balancer = balancer(weighted("a", 3), weighted("b", 1));
		ConcurrentHashMap<String, AtomicInteger> counts = new ConcurrentHashMap<>();
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int thread = 0; thread < 4; thread++) {
				done.add(threads.submit(() -> IntStream.range(0, 1000)
					.forEach((i) -> counts
						.computeIfAbsent(balancer.pick().orElseThrow().id(), (id) -> new AtomicInteger())
						.incrementAndGet())));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			threads.shutdownNow();
		}

		// 4000 picks are 1000 full rounds of 4, so the shares are exact when picks never
		// interleave inside the balancer.
		assertThat(counts.get("a")).hasValue(3000);
		assertThat(counts.get("b")).hasValue(1000);
	}

	@Test
	void eachPickIsOnePassOverManyCandidates() {
		List<WatchedInstance> many = IntStream.range(0, 10_000)
			.mapToObj((i) -> weighted("i" + i, 1 + i % 100))
			.toList();
		SmoothWeightedBalancer balancer = new SmoothWeightedBalancer();
		balancer.update(many);

		// A pick that looped or went quadratic would need far longer than this.
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> picks(balancer, 1000));
	}

	private static SmoothWeightedBalancer balancer(WatchedInstance... instances) {
		SmoothWeightedBalancer balancer = new SmoothWeightedBalancer();
		balancer.update(List.of(instances));
		return balancer;
	}

	private static List<String> picks(SmoothWeightedBalancer balancer, int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add(balancer.pick().orElseThrow().id());
		}
		return ids;
	}

}
