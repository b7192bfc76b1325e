package dev.ballast.prometheus;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.ballast.database.Reachability;
import dev.ballast.registry.ServiceName;
import dev.ballast.support.Api;
import dev.ballast.support.OutageNode;
import dev.ballast.support.Registration;
import dev.ballast.watch.AppliedServices;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose PostgreSQL stops: its Prometheus targets go on from memory, the same
 * targets marked stale, for the services it follows and for those it followed for
 * Prometheus before and has let go; a service it never read is 503 within its bound; once
 * the database is back, changes show again.
 */
class PrometheusOutageTest {

	static final String SERVICE = "prom-outage";

	/** Asked once, then let go by the node before the outage. */
	static final String LET_GO = "prom-let-go";

	@TempDir
	static Path dataDirectory;

	static OutageNode outage;

	@BeforeAll
	static void startDatabaseAndNode() throws IOException {
		outage = OutageNode.start(dataDirectory, "ballast.watch.idle-service-timeout=1s");
	}

	@AfterAll
	static void stopNodeAndDatabase() throws IOException {
		if (outage != null) {
			outage.close();
		}
	}

	@Test
	void keepsAnsweringFromMemoryWhileTheDatabaseIsDown() throws Exception {
		Api api = Api.on(outage.node().port());
		register(api, SERVICE, "a", 300);
		register(api, SERVICE, "b", 100);
		register(api, LET_GO, "x", 50);
		String targets = "/v1/prometheus/targets?service=" + SERVICE;
		String letGo = "/v1/prometheus/targets?service=" + LET_GO;
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> weights(api.get(targets).json()).equals(List.of("300", "100")));
		JsonNode before = api.get(targets).json();
		JsonNode letGoBefore = api.get(letGo).json();
		assertThat(weights(letGoBefore)).containsExactly("50");
		// Sorted by service: prom-let-go first.
		assertThat(weights(api.get("/v1/prometheus/targets").json())).containsExactly("50", "300", "100");
		// The node follows what Prometheus asks for only while it asks.
		AppliedServices applied = outage.node().bean(AppliedServices.class);
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.until(() -> applied.applied(ServiceName.of(LET_GO)).isEmpty());
		Reachability reachability = outage.node().bean(Reachability.class);

		outage.postgres().stop();
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !reachability.reachable());

		for (int i = 0; i < 5; i++) {
			Api.Reply during = api.get(targets);
			assertThat(during.status()).isEqualTo(200);
			assertThat(during.json()).isEqualTo(before);
			assertThat(during.header("X-Ballast-Stale")).hasValue("true");
			Api.Reply all = api.get("/v1/prometheus/targets");
			assertThat(all.status()).isEqualTo(200);
			assertThat(all.header("X-Ballast-Stale")).hasValue("true");
			assertThat(weights(all.json())).containsExactly("50", "300", "100");
			Thread.sleep(600);
		}
		Api.Reply remembered = api.get(letGo);
		assertThat(remembered.status()).isEqualTo(200);
		assertThat(remembered.json()).isEqualTo(letGoBefore);
		assertThat(remembered.header("X-Ballast-Stale")).hasValue("true");
		long asked = System.nanoTime();
		Api.Reply unknown = api.get("/v1/prometheus/targets?service=never-read");
		assertThat(unknown.status()).isEqualTo(503);
		assertThat(unknown.header("Retry-After")).isPresent();
		assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(3));

		outage.postgres().start();
		Awaitility.await().atMost(Duration.ofSeconds(20)).until(reachability::reachable);
		// The pool may still refuse (503) for a moment after the probe is through.
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(500))
			.until(() -> api.patch("/v1/services/%s/instances/b".formatted(SERVICE), "{\"weight\":300}")
				.status() == 200);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
			Api.Reply after = api.get(targets);
			return after.header("X-Ballast-Stale").isEmpty() && weights(after.json()).equals(List.of("300", "300"));
		});
		assertThat(api.get("/v1/prometheus/targets?service=never-read").json()).isEmpty();
	}

	private static void register(Api api, String service, String id, int weight) {
		assertThat(api
			.put("/v1/services/%s/instances/%s".formatted(service, id),
					Registration.at("10.9.0.1", 9100).weight(weight).leaseTtlSeconds(300))
			.status()).isEqualTo(201);
	}

	/** The targets' weights in the answer's order (sorted by service, then id). */
	private static List<String> weights(JsonNode groups) {
		return groups.valueStream().map(group -> group.get("labels").get("__meta_ballast_weight").asString()).toList();
	}

}
