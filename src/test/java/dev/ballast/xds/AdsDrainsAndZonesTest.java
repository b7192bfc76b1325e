package dev.ballast.xds;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client's zone selects the zone view that {@code ?zone=} gives every other output, and
 * its ACK of the endpoints without a draining instance completes the drain.
 */
@RegistryTest
class AdsDrainsAndZonesTest {

	static final Duration SOON = Duration.ofSeconds(15);

	@LocalServerPort
	int port;

	@Autowired
	AdsServer server;

	@Test
	void theAckOfTheEndpointsWithoutADrainedInstanceConfirmsItsDrain() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("adsdrain");
		for (int i = 0; i < 4; i++) {
			api.put("/v1/services/%s/instances/i%d".formatted(service, i), Registration.at("10.4.0." + (i + 1), 7000));
		}
		try (AdsClient client = AdsClient.open(server.port(), "grpc-drain", null, Admin.TOKEN)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			client.ack(client.next(SOON), service);

			JsonNode draining = api
				.send("POST", "/v1/services/%s/instances/i0/drain".formatted(service), "{\"durationSeconds\":0}", null)
				.json();
			assertThat(draining.get("mode").asString()).isEqualTo("DRAINING");
			assertThat(draining.get("effectiveWeight").asInt()).isZero();
			DiscoveryResponse without = client.next(SOON);
			assertThat(addresses(without)).doesNotContain("10.4.0.1").hasSize(3);
			await().atMost(SOON)
				.untilAsserted(() -> assertThat(instance(api, service, "i0").get("unconfirmedSubscribers").toString())
					.isEqualTo("[\"grpc-drain\"]"));
			Thread.sleep(1000);
			assertThat(instance(api, service, "i0").get("mode").asString()).as("not confirmed yet")
				.isEqualTo("DRAINING");

			client.ack(without, service);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(
						() -> assertThat(instance(api, service, "i0").get("mode").asString()).isEqualTo("DRAINED"));
			assertThat(instance(api, service, "i0").has("unconfirmedSubscribers")).isFalse();
		}
	}

	@Test
	void aClientInAZoneGetsThatZonesViewAsQueryingWithZoneDoes() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("adszone");
		for (int i = 1; i <= 6; i++) {
			api.put("/v1/services/%s/instances/%s".formatted(service, (i <= 3 ? "a" : "b") + i),
					Registration.at("10.5.0." + i, 7000).weight(100).zone(i <= 3 ? "za" : "zb").leaseTtlSeconds(300));
		}
		assertThat(api
			.patch("/v1/services/" + service,
					"{\"maxUnroutable\":\"100%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}")
			.status()).isEqualTo(200);
		try (AdsClient za = AdsClient.open(server.port(), "client-za", "za", Admin.TOKEN);
				AdsClient flat = AdsClient.open(server.port(), "client-flat", null, Admin.TOKEN)) {
			za.ask(Resources.ENDPOINTS, "", "", service);
			flat.ask(Resources.ENDPOINTS, "", "", service);
			DiscoveryResponse local = za.next(SOON);
			assertThat(weightsByAddress(local)).isEqualTo(Map.of("10.5.0.1", 100L, "10.5.0.2", 100L, "10.5.0.3", 100L));
			za.ack(local, service);
			flat.ack(flat.next(SOON), service);

			for (String id : new String[] { "a2", "a3" }) {
				api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id),
						"{\"reason\":\"disk\"}", null);
			}
			Map<String, Long> expected = zoneView(api, service, "za");
			assertThat(expected)
				.isEqualTo(Map.of("10.5.0.1", 8000L, "10.5.0.4", 667L, "10.5.0.5", 667L, "10.5.0.6", 666L));
			await().atMost(SOON).untilAsserted(() -> {
				DiscoveryResponse next = za.next(SOON);
				za.ack(next, service);
				assertThat(weightsByAddress(next)).isEqualTo(expected);
			});
			await().atMost(SOON).untilAsserted(() -> {
				DiscoveryResponse next = flat.next(SOON);
				flat.ack(next, service);
				assertThat(weightsByAddress(next))
					.isEqualTo(Map.of("10.5.0.1", 100L, "10.5.0.4", 100L, "10.5.0.5", 100L, "10.5.0.6", 100L));
			});
		}
	}

	private static JsonNode instance(Api api, String service, String id) {
		return api.get("/v1/services/%s/instances/%s".formatted(service, id)).json();
	}

	/** The routable instances of {@code ?zone=}'s view, by address. */
	private static Map<String, Long> zoneView(Api api, String service, String zone) {
		Map<String, Long> weights = new TreeMap<>();
		for (JsonNode instance : api.get("/v1/services/%s/instances?zone=%s".formatted(service, zone))
			.json()
			.get("instances")) {
			if (instance.get("effectiveWeight").asLong() > 0) {
				weights.put(instance.get("address").asString(), instance.get("effectiveWeight").asLong());
			}
		}
		return weights;
	}

	private static Map<String, Long> weightsByAddress(DiscoveryResponse response) throws Exception {
		Map<String, Long> weights = new TreeMap<>();
		response.getResources(0)
			.unpack(ClusterLoadAssignment.class)
			.getEndpointsList()
			.forEach(locality -> locality.getLbEndpointsList()
				.forEach(endpoint -> weights.put(endpoint.getEndpoint().getAddress().getSocketAddress().getAddress(),
						(long) endpoint.getLoadBalancingWeight().getValue())));
		return weights;
	}

	private static Set<String> addresses(DiscoveryResponse response) throws Exception {
		return weightsByAddress(response).keySet();
	}

}
