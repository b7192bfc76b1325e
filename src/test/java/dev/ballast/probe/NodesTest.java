package dev.ballast.probe;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The nodes page's source: the answering node alive with the checks it really probes
 * (what its prober owns), a node gone silent listed as not alive with its lease-writer
 * position, and the probing of a dead node's checks counted on the live ones.
 */
@RegistryTest
class NodesTest {

	@LocalServerPort
	int port;

	@Autowired
	Prober prober;

	@Autowired
	JdbcClient jdbc;

	@Test
	void listsEachNodeWithTheChecksItProbesAndItsLeaseWriterPosition() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("nodes");
		String gone = "gone-" + service;
		// Silent for a moment, well within the grace after which the sweep forgets it.
		Instant wrote = Instant.now().minusSeconds(2).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		try (TestTargets targets = new TestTargets()) {
			int target = targets.answering(200).port();
			for (int index = 0; index < 3; index++) {
				api.put("/v1/services/%s/instances/i-%d".formatted(service, index),
						"{\"address\":\"127.0.0.1\",\"port\":%d,\"checks\":[{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":1,\"timeoutMillis\":300}]}"
							.formatted(target, target));
			}
			jdbc.sql("INSERT INTO node (node, seen_at, renewals_through) VALUES (?, now() - interval '10 minutes', ?)")
				.params(gone, Timestamp.from(wrote))
				.update();
			try {
				Awaitility.await()
					.atMost(Duration.ofSeconds(15))
					.pollInterval(Duration.ofMillis(200))
					.untilAsserted(() -> {
						JsonNode self = node(api, true, service);
						assertThat(self.path("alive").booleanValue()).isTrue();
						assertThat(mine(self.path("probing"), service)).as("what this node's prober owns")
							.isEqualTo(mine(prober.owned(), service))
							.hasSize(3);
					});
				JsonNode self = node(api, true, service);
				assertThat(Instant.parse(self.path("lastSeenAt").stringValue()))
					.isAfter(Instant.now().minusSeconds(60));
				assertThat(self.path("checks").intValue()).as("only the service asked for").isEqualTo(3);
				JsonNode probed = self.path("probing").get(0);
				assertThat(probed.path("kind").isString()).isTrue();
				assertThat(probed.path("check").stringValue()).startsWith("service:");

				JsonNode silent = null;
				for (JsonNode node : api.get("/v1/nodes").json()) {
					silent = node.path("id").stringValue().equals(gone) ? node : silent;
				}
				assertThat(silent).as("the node gone silent").isNotNull();
				assertThat(silent.path("alive").booleanValue()).isFalse();
				assertThat(silent.path("self").booleanValue()).isFalse();
				assertThat(silent.path("checks").intValue()).as("a dead node probes nothing").isZero();
				assertThat(Instant.parse(silent.path("renewalsThrough").stringValue())).isEqualTo(wrote);
			}
			finally {
				jdbc.sql("DELETE FROM node WHERE node = ?").param(gone).update();
			}
		}
	}

	private static JsonNode node(Api api, boolean self, String service) {
		for (JsonNode node : api.get("/v1/nodes?service=" + service).json()) {
			if (node.path("self").booleanValue() == self) {
				return node;
			}
		}
		throw new AssertionError("no node with self " + self);
	}

	private static Set<String> mine(JsonNode probing, String service) {
		Set<String> keys = new TreeSet<>();
		probing.forEach(check -> {
			if (check.path("service").stringValue().equals(service)) {
				keys.add(service + "/" + check.path("instance").stringValue() + "/0");
			}
		});
		return keys;
	}

	private static Set<String> mine(Set<String> owned, String service) {
		Set<String> keys = new TreeSet<>();
		owned.stream().filter(key -> key.startsWith(service + "/")).forEach(keys::add);
		return keys;
	}

}
