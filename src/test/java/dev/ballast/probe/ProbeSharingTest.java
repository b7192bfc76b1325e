package dev.ballast.probe;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two nodes share the checks: each check is owned by exactly one of them, and when one
 * dies (its membership row left as a killed node leaves it) the other takes its checks
 * within liveness (3 s) + a beat (1 s) + the handover (2 s).
 */
@RegistryTest
class ProbeSharingTest {

	static final Duration MOVED_WITHIN = Duration.ofSeconds(8);

	@LocalServerPort
	int port;

	@Autowired
	Prober prober;

	@Autowired
	ProberMembership membership;

	@Autowired
	JdbcClient jdbc;

	@Test
	void twoNodesSplitTheChecksAndTheSurvivorTakesADeadNodesShare() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("shared");
		try (TestTargets targets = new TestTargets()) {
			TestTargets.Answering target = targets.answering(200);
			Set<String> keys = new HashSet<>();
			for (int index = 0; index < 40; index++) {
				api.put("/v1/services/%s/instances/i-%d".formatted(service, index),
						"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":300}]}"
							.formatted(target.port(), target.port()));
				keys.add(service + "/i-" + index + "/0");
			}
			OtherNode other = OtherNode.start();
			String otherNode;
			try {
				Prober second = other.bean(Prober.class);
				otherNode = other.bean(ProberMembership.class).node();
				Awaitility.await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
					Set<String> here = mine(prober, keys);
					Set<String> there = mine(second, keys);
					assertThat(here).as("both nodes probe some").isNotEmpty();
					assertThat(there).isNotEmpty();
					assertThat(intersection(here, there)).as("no check on two nodes").isEmpty();
					Set<String> union = new HashSet<>(here);
					union.addAll(there);
					assertThat(union).as("every check on one node").isEqualTo(keys);
				});
			}
			finally {
				other.close();
			}
			// A killed node does not leave: its row stays as its last beat wrote it.
			Instant died = Instant.now();
			jdbc.sql("INSERT INTO node (node, seen_at) VALUES (?, ?) ON CONFLICT (node) DO UPDATE SET seen_at = ?")
				.params(otherNode, Timestamp.from(died), Timestamp.from(died))
				.update();
			Awaitility.await()
				.atMost(MOVED_WITHIN)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> mine(prober, keys).equals(keys));
			Duration moved = Duration.between(died, Instant.now());
			int hits = target.hits().get();
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> target.hits().get() >= hits + 40);
			System.out.printf("checks of the dead node owned by the survivor after %d ms%n", moved.toMillis());
			// Not before the dead node's row is older than the liveness (3 s).
			assertThat(moved).isGreaterThanOrEqualTo(Duration.ofMillis(2500));
		}
	}

	private static Set<String> mine(Prober prober, Set<String> keys) {
		Set<String> owned = new HashSet<>(prober.owned());
		owned.retainAll(keys);
		return owned;
	}

	private static Set<String> intersection(Set<String> a, Set<String> b) {
		Set<String> both = new HashSet<>(a);
		both.retainAll(b);
		return both;
	}

}
