package dev.ballast.probe;

import java.time.Duration;
import java.time.Instant;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why an instance is critical, as its own resource says it, with the checks the registry
 * runs on it: a failing probe is told apart from a lease that ran out and from the
 * instance's own report, and the resource shows the check's target, interval, status and
 * output, which before only Consul's {@code /v1/health/checks} showed.
 */
@RegistryTest
class CriticalReasonTest {

	@LocalServerPort
	int port;

	final TestTargets targets = new TestTargets();

	@AfterEach
	void closeTargets() throws Exception {
		targets.close();
	}

	@Test
	void aFailingProbeIsTheCauseAndTheResourceShowsTheCheckAndItsOutput() {
		Api api = Api.on(port);
		String service = Names.service("probecause");
		int refusing = TestTargets.refusing();
		int healthy = targets.answering(200).port();
		register(api, service, "down", refusing, 300);
		register(api, service, "up", healthy, 300);
		String path = "/v1/services/%s/instances/down".formatted(service);
		Awaitility.await()
			.atMost(ProbedHealthTest.VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> api.get(path).json().path("health").stringValue().equals("CRITICAL"));
		JsonNode down = api.get(path).json();
		assertThat(down.path("criticalReason").stringValue()).isEqualTo("check-failing");
		assertThat(Instant.parse(down.path("leaseExpiresAt").stringValue())).as("its lease still runs")
			.isAfter(Instant.now());
		assertThat(down.path("healthDetail").stringValue())
			.startsWith("Critical: a check the registry runs on it fails")
			.doesNotContain("lease");
		JsonNode check = down.path("checks").get(0);
		assertThat(check.path("id").stringValue()).isEqualTo("service:down:1");
		assertThat(check.path("kind").stringValue()).isEqualTo("HTTP");
		assertThat(check.path("target").stringValue()).isEqualTo("http://127.0.0.1:%d/health".formatted(refusing));
		assertThat(check.path("intervalMillis").longValue()).isEqualTo(1000);
		assertThat(check.path("timeoutMillis").longValue()).isEqualTo(300);
		assertThat(check.path("status").stringValue()).isEqualTo("critical");
		assertThat(check.path("output").stringValue())
			.startsWith("HTTP GET http://127.0.0.1:%d/health".formatted(refusing));
		assertThat(Instant.parse(check.path("since").stringValue())).isBefore(Instant.now());

		JsonNode up = api.get("/v1/services/%s/instances/up".formatted(service)).json();
		assertThat(up.path("health").stringValue()).isEqualTo("PASSING");
		assertThat(up.has("criticalReason")).isFalse();
		assertThat(up.path("checks").get(0).path("status").stringValue()).isEqualTo("passing");
		assertThat(
				api.get("/v1/services/%s/instances".formatted(service)).json().path("instances").get(0).has("checks"))
			.as("the list carries no checks: they are the resource's")
			.isFalse();
	}

	@Test
	void aLeaseThatRanOutIsTheCauseAndOutlivesTheCheckThatFailedFirst() {
		Api api = Api.on(port);
		String service = Names.service("leasecause");
		TestTargets.Answering target = targets.answering(500);
		register(api, service, "a", target.port(), 5);
		String path = "/v1/services/%s/instances/a".formatted(service);
		Awaitility.await()
			.atMost(ProbedHealthTest.VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> "check-failing".equals(api.get(path).json().path("criticalReason").asString("")));
		// Its lease (5 s, never renewed) runs out while the check fails; once the check
		// passes again, the lease is what keeps it critical, and the resource says so.
		Awaitility.await()
			.atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> Instant.parse(api.get(path).json().path("leaseExpiresAt").stringValue())
				.isBefore(Instant.now()));
		// What the target answered is shown whole to a caller that may write the service,
		// and to a reader only the verdict.
		String whole = api.get(path).json().path("checks").get(0).path("output").stringValue();
		assertThat(whole)
			.startsWith("HTTP GET http://127.0.0.1:%d/health: 500 Output: status 500".formatted(target.port()));
		String reader = api.send("POST", "/v1/tokens", "{\"name\":\"checks reader\",\"role\":\"reader\"}", null)
			.json()
			.path("token")
			.stringValue();
		assertThat(api.as(reader).get(path).json().path("checks").get(0).path("output").stringValue())
			.isEqualTo("HTTP GET http://127.0.0.1:%d/health: 500".formatted(target.port()));
		target.answer(200);
		Awaitility.await()
			.atMost(ProbedHealthTest.VERDICT)
			.pollInterval(Duration.ofMillis(200))
			.untilAsserted(() -> assertThat(api.get(path).json().path("criticalReason").stringValue())
				.isEqualTo("lease-expired"));
		JsonNode a = api.get(path).json();
		assertThat(a.path("health").stringValue()).isEqualTo("CRITICAL");
		assertThat(a.path("checks").get(0).path("status").stringValue()).isEqualTo("passing");
		assertThat(a.path("healthDetail").stringValue()).startsWith("Critical: its lease ran out at ");

		api.send("POST", path + "/heartbeat", null, null);
		JsonNode back = api.get(path).json();
		assertThat(back.path("health").stringValue()).isEqualTo("PASSING");
		assertThat(back.has("criticalReason")).isFalse();
	}

	@Test
	void anInstanceThatReportsItselfCriticalSaysSo() {
		Api consul = Api.unchecked(port);
		String service = Names.service("reportcause");
		for (String id : new String[] { "r1", "r2", "r3", "r4", "r5" }) {
			assertThat(consul.put("/v1/agent/service/register",
					"{\"Name\":\"%s\",\"ID\":\"%s-%s\",\"Address\":\"127.0.0.1\",\"Port\":80,\"Check\":{\"TTL\":\"60s\"}}"
						.formatted(service, service, id))
				.status()).isEqualTo(200);
		}
		assertThat(consul.put("/v1/agent/check/fail/service:%s-r1".formatted(service), "").status()).isEqualTo(200);
		JsonNode r1 = Api.on(port).get("/v1/services/%s/instances/%s-r1".formatted(service, service)).json();
		assertThat(r1.path("criticalReason").stringValue()).isEqualTo("reported-critical");
		assertThat(r1.path("healthDetail").stringValue())
			.isEqualTo("Critical: it reported itself critical. Ejected: out of rotation until it reports passing.");
		assertThat(r1.path("checks").isEmpty()).as("it has no check the registry runs").isTrue();
	}

	private static void register(Api api, String service, String id, int port, int leaseTtlSeconds) {
		Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":%d,\"checks\":[{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":300}]}"
					.formatted(port, leaseTtlSeconds, port));
		assertThat(reply.status()).as(reply.body()).isIn(200, 201);
	}

}
