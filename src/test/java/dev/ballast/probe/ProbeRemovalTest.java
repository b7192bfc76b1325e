package dev.ballast.probe;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code deregisterAfterSeconds} inside the ejection cap: three instances whose checks
 * all fail, each to be removed after 60 s critical. The cap ejects one and holds the
 * others routable; the ejected one is removed once its 60 s have passed, as the
 * registry's own act ({@code instance.remove} by {@code system}), and an instance the cap
 * holds routable is never removed, so the service is never emptied. It takes the 60 s it
 * tests (Consul's lower bound for the setting).
 */
@RegistryTest
class ProbeRemovalTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	final TestTargets targets = new TestTargets();

	@AfterEach
	void closeTargets() throws Exception {
		targets.close();
	}

	@Test
	void anInstanceTheCapHoldsRoutableIsNotRemovedAndRemovalsAreTheRegistrysOwn() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("deregister");
		for (String id : List.of("a", "b", "c")) {
			int failing = targets.answering(503).port();
			Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
					"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":300,\"checks\":[{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":300,\"deregisterAfterSeconds\":60}]}"
						.formatted(failing, failing));
			assertThat(reply.status()).as(reply.body()).isEqualTo(201);
		}
		Awaitility.await()
			.atMost(ProbedHealthTest.VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.untilAsserted(() -> assertThat(ProbedHealthTest.instances(api, service).values())
				.allSatisfy(instance -> assertThat(instance.path("health").stringValue()).isEqualTo("CRITICAL")));
		// Until well past the 60 s: every instance the cap holds routable stays, and at
		// least one instance is always listed and routable.
		long until = System.nanoTime() + Duration.ofSeconds(75).toNanos();
		while (System.nanoTime() < until) {
			Map<String, JsonNode> now = ProbedHealthTest.instances(api, service);
			assertThat(now.values()).as("the service is never emptied")
				.anySatisfy(instance -> assertThat(instance.path("effectiveWeight").intValue()).isPositive());
			Thread.sleep(500);
		}
		assertThat(removals(service, "instance.remove", "system")).as("the ejected one removed by the registry")
			.isPositive();
		assertThat(removals(service, "instance.deregister", null)).as("no deregistration on anyone's behalf").isZero();
		assertThat(ProbedHealthTest.instances(api, service).values())
			.anySatisfy(instance -> assertThat(instance.path("effectiveWeight").intValue()).isPositive());
	}

	private long removals(String service, String action, String tokenId) {
		return jdbc.sql(
				"SELECT count(*) FROM audit_event WHERE service = ? AND action = ? AND (?::text IS NULL OR token_id = ?)")
			.params(service, action, tokenId, tokenId)
			.query(Long.class)
			.single();
	}

}
