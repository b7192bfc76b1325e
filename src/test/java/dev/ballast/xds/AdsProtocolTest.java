package dev.ballast.xds;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ADS protocol as the server speaks it, request by request: each type answered with
 * its version and a fresh nonce, a change pushed unasked, ACKs recorded as a subscriber's
 * acknowledgements, a NACK logged, counted and listed while nothing is sent again,
 * unknown names left out, subscriptions that change, stale nonces, and a reopened stream.
 */
@RegistryTest
class AdsProtocolTest {

	static final Duration SOON = Duration.ofSeconds(15);

	static final Duration QUIET = Duration.ofMillis(700);

	@LocalServerPort
	int port;

	@Autowired
	AdsServer server;

	Api api;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("ads");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("10.2.0.1", 7001).weight(300));
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("10.2.0.2", 7002).weight(100));
	}

	@Test
	void answersEachTypeWithItsVersionAndANonceAndPushesEveryChangeUnasked() throws Exception {
		try (AdsClient client = AdsClient.open(server.port(), "node-1", null, Admin.TOKEN)) {
			client.ask(Resources.LISTENER, "", "", service);
			DiscoveryResponse lds = client.next(SOON);
			assertThat(lds.getTypeUrl()).isEqualTo(Resources.LISTENER);
			assertThat(lds.getVersionInfo()).isEqualTo("1");
			assertThat(lds.getNonce()).isNotEmpty();
			Listener listener = lds.getResources(0).unpack(Listener.class);
			assertThat(listener.getName()).isEqualTo(service);
			HttpConnectionManager manager = listener.getApiListener()
				.getApiListener()
				.unpack(HttpConnectionManager.class);
			assertThat(manager.getRds().getRouteConfigName()).isEqualTo(service);
			assertThat(manager.getHttpFilters(manager.getHttpFiltersCount() - 1).getName())
				.isEqualTo("envoy.filters.http.router");
			client.ack(lds, service);

			client.ask(Resources.ROUTE, "", "", service);
			DiscoveryResponse rds = client.next(SOON);
			assertThat(rds.getResources(0)
				.unpack(RouteConfiguration.class)
				.getVirtualHosts(0)
				.getRoutes(0)
				.getRoute()
				.getCluster()).isEqualTo(service);
			assertThat(rds.getNonce()).isNotEqualTo(lds.getNonce());
			client.ack(rds, service);

			client.ask(Resources.CLUSTER, "", "", service);
			DiscoveryResponse cds = client.next(SOON);
			Cluster cluster = cds.getResources(0).unpack(Cluster.class);
			assertThat(cluster.getType()).isEqualTo(Cluster.DiscoveryType.EDS);
			assertThat(cluster.getLbPolicy()).isEqualTo(Cluster.LbPolicy.ROUND_ROBIN);
			client.ack(cds, service);

			client.ask(Resources.ENDPOINTS, "", "", service);
			DiscoveryResponse eds = client.next(SOON);
			long revision = revision();
			assertThat(eds.getVersionInfo()).isEqualTo(service + ":" + revision);
			assertThat(weights(eds)).containsExactly(300L, 100L);
			client.ack(eds, service);
			assertThat(client.poll(QUIET)).as("an ACK is answered by nothing").isNull();

			api.patch("/v1/services/%s/instances/b".formatted(service), "{\"weight\":200}");
			DiscoveryResponse pushed = client.next(SOON);
			assertThat(pushed.getVersionInfo()).isEqualTo(service + ":" + (revision + 1));
			assertThat(weights(pushed)).containsExactly(300L, 200L);
			assertThat(pushed.getNonce()).isNotEqualTo(eds.getNonce());
		}
	}

	@Test
	void anAckIsTheSubscribersAcknowledgementAndANackIsListedCountedAndNotResent() throws Exception {
		try (AdsClient client = AdsClient.open(server.port(), "grpc-acks", "za", Admin.TOKEN)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			DiscoveryResponse first = client.next(SOON);
			client.ack(first, service);
			await().atMost(SOON).untilAsserted(() -> {
				JsonNode subscriber = subscriber("grpc-acks");
				assertThat(subscriber.get("protocol").asString()).isEqualTo("xds");
				assertThat(subscriber.get("zone").asString()).isEqualTo("za");
				assertThat(subscriber.get("ackedRevision").asLong()).isEqualTo(revision());
				assertThat(subscriber.has("lastNack")).isFalse();
			});

			double nacksBefore = nacks();
			api.patch("/v1/services/%s/instances/b".formatted(service), "{\"weight\":50}");
			DiscoveryResponse refused = client.next(SOON);
			client.nack(refused, first.getVersionInfo(), "weights out of reach", service);
			assertThat(client.poll(QUIET)).as("the client keeps its last good version: nothing is resent").isNull();
			await().atMost(SOON).untilAsserted(() -> {
				JsonNode subscriber = subscriber("grpc-acks");
				assertThat(subscriber.get("ackedRevision").asLong()).isEqualTo(revision() - 1);
				assertThat(subscriber.get("lastNack").get("revision").asLong()).isEqualTo(revision());
				assertThat(subscriber.get("lastNack").get("detail").asString()).isEqualTo("weights out of reach");
			});
			assertThat(nacks()).isEqualTo(nacksBefore + 1);

			api.patch("/v1/services/%s/instances/b".formatted(service), "{\"weight\":60}");
			DiscoveryResponse next = client.next(SOON);
			client.ack(next, service);
			await().atMost(SOON)
				.untilAsserted(
						() -> assertThat(subscriber("grpc-acks").get("ackedRevision").asLong()).isEqualTo(revision()));
		}
	}

	@Test
	void namesThatAreNoServiceAreLeftOutAndAStaleNonceIsNotReadAsASubscription() throws Exception {
		try (AdsClient client = AdsClient.open(server.port(), "node-unknown", null, Admin.TOKEN)) {
			client.ask(Resources.LISTENER, "", "", "Not_A_Service", service, "x".repeat(70));
			DiscoveryResponse lds = client.next(SOON);
			assertThat(lds.getResourcesList()).hasSize(1);
			assertThat(lds.getResources(0).unpack(Listener.class).getName()).isEqualTo(service);
			client.ack(lds, "Not_A_Service", service, "x".repeat(70));

			client.ask(Resources.CLUSTER, "", "", "no such/name");
			DiscoveryResponse cds = client.next(SOON);
			assertThat(cds.getResourcesList()).as("a full-state type says at once that it does not exist").isEmpty();

			client.ask(Resources.ENDPOINTS, "", "", "Nope");
			assertThat(client.poll(QUIET)).as("endpoints of no service are never sent").isNull();

			String other = Names.service("ads-other");
			api.put("/v1/services/%s/instances/o".formatted(other), Registration.at("10.2.1.1", 7100));
			client.ask(Resources.CLUSTER, "1", "0", service, other);
			assertThat(client.poll(QUIET)).as("a request with a stale nonce is not read as a subscription").isNull();
			client.ask(Resources.CLUSTER, cds.getVersionInfo(), cds.getNonce(), service, other);
			DiscoveryResponse both = client.next(SOON);
			assertThat(both.getResourcesList()).extracting(any -> any.unpack(Cluster.class).getName())
				.containsExactlyInAnyOrder(service, other);
		}
	}

	@Test
	void aChangedSubscriptionSendsOnlyWhatIsNewAndAReopenedStreamStartsOver() throws Exception {
		String other = Names.service("ads-more");
		api.put("/v1/services/%s/instances/o".formatted(other), Registration.at("10.2.2.1", 7200));
		try (AdsClient client = AdsClient.open(server.port(), "node-resub", null, Admin.TOKEN)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			DiscoveryResponse first = client.next(SOON);
			client.ack(first, service, other);
			DiscoveryResponse added = client.next(SOON);
			assertThat(names(added)).containsExactly(other);
			assertThat(added.getVersionInfo()).isEqualTo(other + ":1");
			client.ack(added, other);
			api.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":310}");
			assertThat(client.poll(QUIET)).as("no longer subscribed").isNull();
			api.patch("/v1/services/%s/instances/o".formatted(other), "{\"weight\":7}");
			assertThat(names(client.next(SOON))).containsExactly(other);
		}
		try (AdsClient again = AdsClient.open(server.port(), "node-resub", null, Admin.TOKEN)) {
			again.ask(Resources.ENDPOINTS, "", "", service, other);
			// Both anew: each is sent as soon as its state is loaded, together or not.
			List<String> versions = new ArrayList<>();
			List<String> sent = new ArrayList<>();
			while (sent.size() < 2) {
				DiscoveryResponse response = again.next(SOON);
				versions.add(response.getVersionInfo());
				sent.addAll(names(response));
			}
			assertThat(sent).containsExactlyInAnyOrder(service, other);
			assertThat(String.join(",", versions)).contains(service + ":" + revision()).contains(other + ":2");
		}
	}

	@Test
	void aServiceNotRegisteredYetIsSentEmptyThenItsFirstInstance() throws Exception {
		String later = Names.service("ads-later");
		try (AdsClient client = AdsClient.open(server.port(), "node-later", null, Admin.TOKEN)) {
			client.ask(Resources.ENDPOINTS, "", "", later);
			DiscoveryResponse empty = client.next(SOON);
			assertThat(empty.getResources(0).unpack(ClusterLoadAssignment.class).getEndpointsCount()).isZero();
			client.ack(empty, later);
			api.put("/v1/services/%s/instances/x".formatted(later), Registration.at("10.2.3.1", 7300));
			assertThat(weights(client.next(SOON))).containsExactly(100L);
		}
	}

	private long revision() {
		return api.get("/v1/services/%s/instances".formatted(service)).json().get("revision").asLong();
	}

	private JsonNode subscriber(String name) {
		for (JsonNode subscriber : api.get("/v1/services/%s/subscribers".formatted(service))
			.json()
			.get("subscribers")) {
			if (subscriber.get("name").asString().equals(name)) {
				return subscriber;
			}
		}
		throw new AssertionError("no subscriber " + name);
	}

	private double nacks() {
		String metrics = Api.unchecked(port).get("/actuator/prometheus").body();
		return metrics.lines()
			.filter(line -> line.startsWith("ballast_xds_nacks_total{type=\"endpoints\"}"))
			.mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

	static List<String> names(DiscoveryResponse response) {
		return response.getResourcesList().stream().map(any -> {
			try {
				return any.unpack(ClusterLoadAssignment.class).getClusterName();
			}
			catch (Exception ex) {
				throw new AssertionError(ex);
			}
		}).toList();
	}

	/** The endpoint weights of a single assignment, in the order sent. */
	static List<Long> weights(DiscoveryResponse response) throws Exception {
		ClusterLoadAssignment assignment = response.getResources(0).unpack(ClusterLoadAssignment.class);
		return assignment.getEndpointsList()
			.stream()
			.flatMap(locality -> locality.getLbEndpointsList().stream())
			.map(endpoint -> (long) endpoint.getLoadBalancingWeight().getValue())
			.toList();
	}

}
