package dev.ballast.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The reference client against a real registry node. */
@RegistryTest
class ServiceWatchAgainstRegistryTest {

	@LocalServerPort
	int port;

	@Test
	void followsWeightsBalancesByThemAndAcknowledgesWhatItApplied() {
		Api api = Api.on(port);
		String service = Names.service("client");
		String other = Names.service("client-b");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1).weight(300));
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 2).weight(200));
		api.put("/v1/services/%s/instances/c".formatted(service), Registration.at("h", 3).weight(100));
		api.put("/v1/services/%s/instances/z".formatted(other), Registration.at("h", 4));
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		try (ServiceWatch watch = ServiceWatch.builder(URI.create("http://127.0.0.1:" + port), http)
			.services(service, other)
			.subscriber("java-1")
			.token(Admin.TOKEN)
			.balanced()
			.build()) {
			watch.start();
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> watch.instances(service).size() == 3 && watch.instances(other).size() == 1);

			Map<String, Integer> picks = pick(watch.balancer(service), 600);
			assertThat(picks).containsExactlyInAnyOrderEntriesOf(Map.of("a", 300, "b", 200, "c", 100));

			api.patch("/v1/services/%s/instances/a?force=true".formatted(service), "{\"weight\":0}");
			long revision = api.get("/v1/services/%s/instances".formatted(service)).json().get("revision").asLong();
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> watch.revision(service).orElse(0) == revision);
			assertThat(pick(watch.balancer(service), 300))
				.containsExactlyInAnyOrderEntriesOf(Map.of("b", 200, "c", 100));

			Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				JsonNode subscribers = api.get("/v1/services/%s/subscribers".formatted(service)).json();
				assertThat(subscribers.get("subscribers")).hasSize(1);
				assertThat(subscribers.get("subscribers").get(0).get("name").asString()).isEqualTo("java-1");
				assertThat(subscribers.get("subscribers").get(0).get("ackedRevision").asLong()).isEqualTo(revision);
				assertThat(subscribers.get("subscribers").get(0).get("lag").asLong()).isZero();
			});

			api.patch("/v1/services/%s/instances/b?force=true".formatted(service), "{\"weight\":0}");
			api.patch("/v1/services/%s/instances/c?force=true".formatted(service), "{\"weight\":0}");
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> watch.instances(service).stream().noneMatch(WatchedInstance::receivesTraffic));
			assertThat(watch.balancer(service).pick()).as("all zero: no instance, cleanly").isEmpty();
		}
	}

	/**
	 * A watch in zone za balances by zone za's view (docs/locality.md): two zones of
	 * three at weight 100, a cap of 20%; with two of za's three out, a1 takes 80% and
	 * zone zb's three share 20%.
	 */
	@Test
	void balancesByItsZonesView() {
		Api api = Api.on(port);
		String service = Names.service("client-z");
		String other = Names.service("client-zo");
		for (String id : List.of("a1", "a2", "a3", "b1", "b2", "b3")) {
			api.put("/v1/services/%s/instances/%s".formatted(service, id),
					Registration.at("10.0.0." + (id.charAt(1) - '0'), 8000 + id.charAt(0))
						.weight(100)
						.zone("z" + id.charAt(0))
						.leaseTtlSeconds(300));
		}
		api.put("/v1/services/%s/instances/o1".formatted(other), Registration.at("10.0.1.1", 80).zone("zb"));
		api.patch("/v1/services/" + service,
				"{\"maxUnroutable\":\"100%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		for (String[] services : List.of(new String[] { service }, new String[] { service, other })) {
			try (ServiceWatch watch = ServiceWatch.builder(URI.create("http://127.0.0.1:" + port), http)
				.services(services)
				.token(Admin.TOKEN)
				.zone("za")
				.balanced()
				.build()) {
				watch.start();
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> watch.instances(service)
						.stream()
						.filter(WatchedInstance::receivesTraffic)
						.count() == 3);
				assertThat(pick(watch.balancer(service), 300))
					.containsExactlyInAnyOrderEntriesOf(Map.of("a1", 100, "a2", 100, "a3", 100));

				api.send("POST", "/v1/services/%s/instances/a2/maintenance".formatted(service), "{\"reason\":\"disk\"}",
						null);
				api.send("POST", "/v1/services/%s/instances/a3/maintenance".formatted(service), "{\"reason\":\"disk\"}",
						null);
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> watch.instances(service)
						.stream()
						.filter(WatchedInstance::receivesTraffic)
						.map(WatchedInstance::effectiveWeight)
						.toList()
						.equals(List.of(8000, 667, 667, 666)));
				// Smooth weighted round robin picks each exactly by its weight per cycle.
				assertThat(pick(watch.balancer(service), 10_000))
					.containsExactlyInAnyOrderEntriesOf(Map.of("a1", 8000, "b1", 667, "b2", 667, "b3", 666));
				api.send("POST", "/v1/services/%s/instances/a2/serve".formatted(service), "{\"warmupSeconds\":0}",
						null);
				api.send("POST", "/v1/services/%s/instances/a3/serve".formatted(service), "{\"warmupSeconds\":0}",
						null);
			}
		}
	}

	private static Map<String, Integer> pick(SmoothWeightedBalancer balancer, int times) {
		Map<String, Integer> counts = new HashMap<>();
		for (int i = 0; i < times; i++) {
			counts.merge(balancer.pick().orElseThrow().id(), 1, Integer::sum);
		}
		return counts;
	}

}
