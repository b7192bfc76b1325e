package dev.ballast.watch;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.client.InstanceRegistration;
import dev.ballast.client.Registry;
import dev.ballast.client.RegistryException;
import dev.ballast.client.ServiceWatch;
import dev.ballast.client.SmoothWeightedBalancer;
import dev.ballast.client.WatchedInstance;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The Java client (clients/java) against a real registry node. */
@RegistryTest
class JavaClientAgainstRegistryTest {

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
	 * An instance's own calls, as the Spring starter makes them on start and on SIGTERM:
	 * register, heartbeat, drain until the subscribers acknowledged weight 0 (then the
	 * caller's balancer no longer picks it), deregister; a wrong token is refused as
	 * such.
	 */
	@Test
	void registersDrainsUntilItsSubscribersAcknowledgeAndDeregisters() {
		String service = Names.service("client-r");
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		URI base = URI.create("http://127.0.0.1:" + port);
		Registry registry = Registry.builder(base, http).token(Admin.TOKEN).build();
		for (String[] spec : List.of(new String[] { "a", "300" }, new String[] { "b", "200" },
				new String[] { "c", "100" })) {
			WatchedInstance registered = registry
				.register(new InstanceRegistration(service, spec[0], "127.0.0.1", 9000 + spec[0].charAt(0),
						Integer.valueOf(spec[1]), null, Map.of("version", "1"), List.of("v1"), 30));
			assertThat(registered.weight()).isEqualTo(Integer.parseInt(spec[1]));
		}
		assertThat(registry.heartbeat(service, "a")).hasValueSatisfying((beat) -> {
			assertThat(beat.mode()).isEqualTo("SERVING");
			assertThat(beat.effectiveWeight()).isEqualTo(300);
		});
		try (ServiceWatch watch = ServiceWatch.builder(base, http)
			.services(service)
			.subscriber("caller-1")
			.token(Admin.TOKEN)
			.balanced()
			.build()) {
			watch.start();
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> watch.instances(service).size() == 3);

			assertThat(registry.drain(service, "c", Duration.ZERO).mode()).isIn("DRAINING", "DRAINED");
			assertThat(registry.awaitMode(service, "c", "DRAINED", Duration.ofSeconds(20))).isPresent();

			// DRAINED: caller-1 acknowledged weight 0, so its balancer has left c
			// already.
			assertThat(pick(watch.balancer(service), 500))
				.containsExactlyInAnyOrderEntriesOf(Map.of("a", 300, "b", 200));
		}
		assertThat(registry.deregister(service, "c")).isTrue();
		assertThat(registry.deregister(service, "c")).isFalse();
		assertThat(registry.heartbeat(service, "c")).isEmpty();
		assertThat(registry.awaitMode(service, "c", "DRAINED", Duration.ofSeconds(1))).isEmpty();

		Registry wrongToken = Registry.builder(base, http).token("not-a-token").build();
		assertThatExceptionOfType(RegistryException.class).isThrownBy(() -> wrongToken.heartbeat(service, "a"))
			.satisfies((refusal) -> assertThat(refusal.tokenRefused()).isTrue())
			.withMessageStartingWith("the heartbeat of a failed: the registry answered 401");
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
