package dev.ballast.instance;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;
import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import dev.ballast.watch.BlockingQueries;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ?zone=} on the instance list and its blocking form: the worked example of
 * docs/locality.md over HTTP. Two zones of three instances at weight 100, a cap of 20%;
 * two of zone za's instances go into maintenance.
 */
@RegistryTest
class ZoneReadsTest {

	@LocalServerPort
	int port;

	@Autowired
	BlockingQueries reads;

	Api api;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("zones");
		for (String id : List.of("a1", "a2", "a3", "b1", "b2", "b3")) {
			api.put(instances() + "/" + id,
					Registration.at("10.0.0." + (id.charAt(1) - '0'), 8000 + id.charAt(0))
						.weight(100)
						.zone("z" + id.charAt(0)));
		}
		Api.Reply set = api.patch("/v1/services/" + service,
				"{\"maxUnroutable\":\"100%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");
		assertThat(set.status()).as(set.body()).isEqualTo(200);
	}

	@Test
	void answersEachZoneItsOwnViewWithTheCrossZoneShareCapped() {
		assertThat(weights("?zone=za")).containsExactly(100, 100, 100, 0, 0, 0);
		maintenance("a2");
		maintenance("a3");

		assertThat(weights("?zone=za")).containsExactly(8000, 0, 0, 667, 667, 666);
		assertThat(weights("?zone=zb")).containsExactly(0, 0, 0, 100, 100, 100);
		assertThat(weights("")).containsExactly(100, 0, 0, 100, 100, 100);
		JsonNode view = api.get(instances() + "?zone=za").json();
		assertThat(view.get("locality").get("maxCrossZonePercent").intValue()).isEqualTo(20);
		assertThat(view.get("instances").get(1).get("routable").booleanValue()).isFalse();
		assertThat(view.get("instances").get(3).get("routable").booleanValue()).isTrue();
	}

	/**
	 * The applied states the exits read (Prometheus' targets keep them for reads during
	 * an outage) carry the policy, and follow its edit; else a stale zone read after one
	 * would be the flat view.
	 */
	@Test
	void theAppliedStatesCarryTheirPolicy() throws Exception {
		InstanceList list = applied().orElseThrow();
		assertThat(list.locality()).isNotNull();
		assertThat(list.locality().maxCrossZonePercent()).isEqualTo(20);
		api.patch("/v1/services/" + service, "{\"locality\":null}");
		await().atMost(Duration.ofSeconds(10)).until(() -> applied().orElseThrow().locality() == null);
	}

	private Optional<InstanceList> applied() throws Exception {
		return reads.applied(ServiceName.of(service)).copy().get(10, TimeUnit.SECONDS);
	}

	@Test
	void aZoneWithoutAPolicyGetsTheFlatView() {
		api.patch("/v1/services/" + service, "{\"locality\":null}");
		maintenance("a2");
		assertThat(weights("?zone=za")).containsExactly(100, 0, 100, 100, 100, 100);
	}

	@Test
	void aBlockingQueryIsAnsweredWithTheZonesViewAfterTheChange() throws Exception {
		long index = api.get(instances()).json().get("revision").longValue();
		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get(instances() + "?zone=za&wait=20s&index=" + index));
		Thread.sleep(300);
		maintenance("a2");
		maintenance("a3");
		JsonNode answered = waiting.get().json();
		assertThat(answered.get("revision").longValue()).isGreaterThan(index);
		// Woken by the first change or the second: either way the zone's view of it. With
		// one instance out, zone za lacks 1 - 1.4 * 200 / 300 = 6.66% and spills that.
		List<Integer> seen = effective(answered);
		assertThat(seen).isIn(List.of(4667, 0, 4667, 222, 222, 222), List.of(8000, 0, 0, 667, 667, 666));
	}

	/** The node's applied state follows a policy edited while a query waits on it. */
	@Test
	void aWaitingQueryIsAnsweredUnderTheEditedPolicy() throws Exception {
		maintenance("a2");
		maintenance("a3");
		long index = api.get(instances()).json().get("revision").longValue();
		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get(instances() + "?zone=za&wait=20s&index=" + index));
		Thread.sleep(300);
		api.patch("/v1/services/" + service, "{\"locality\":{\"maxCrossZonePercent\":10}}");
		assertThat(effective(waiting.get().json())).containsExactly(9000, 0, 0, 334, 333, 333);
	}

	/**
	 * A zone's stream sends the zone's view as a snapshot when it opens, then an upsert
	 * of each instance whose weight (or address) in the view moved, and only then: a
	 * drain in the other zone leaves a healthy zone's view as it was.
	 */
	@Test
	void aZoneStreamSendsTheInstancesWhoseWeightInItsViewMovedAndOnlyThose() {
		try (EventStream za = EventStream.open(port, "/v1/services/%s/watch?zone=za".formatted(service), null)) {
			EventStream.Event first = za.nextEvent(Duration.ofSeconds(10));
			assertThat(first.name()).isEqualTo("snapshot");
			assertThat(effective(first.json())).containsExactly(100, 100, 100, 0, 0, 0);

			maintenance("b1");
			assertThat(za.eventWithin(Duration.ofSeconds(1))).isNull();

			// Zone za now lacks 6.66%, but zone zb, one out of three, has nothing to
			// spare: only a2 moves in zone za's view.
			maintenance("a2");
			EventStream.Event next = za.nextEvent(Duration.ofSeconds(10));
			assertThat(next.name()).isEqualTo("upsert");
			assertThat(next.json().get("id").asString()).isEqualTo("a2");
			assertThat(next.json().get("effectiveWeight").intValue()).isZero();
			assertThat(Long.parseLong(next.id())).isGreaterThan(Long.parseLong(first.id()));
			assertThat(za.eventWithin(Duration.ofMillis(500))).isNull();

			// a1 moves to another port at the same weight: a balancer must learn where.
			Api.Reply moved = api.put(instances() + "/a1", Registration.at("10.0.0.1", 9999).weight(100).zone("za"));
			assertThat(moved.status()).as(moved.body()).isEqualTo(200);
			EventStream.Event after = za.nextEvent(Duration.ofSeconds(10));
			assertThat(after.name()).isEqualTo("upsert");
			assertThat(after.json().get("id").asString()).isEqualTo("a1");
			assertThat(after.json().get("port").intValue()).isEqualTo(9999);
			assertThat(after.json().get("effectiveWeight").intValue()).isEqualTo(100);
		}
	}

	@Test
	void refusesAZoneOnTheWatchStreamNamingZone() {
		Api.Reply reply = Api.unchecked(port).get("/v1/services/%s/watch?zone=%%00".formatted(service));
		assertThat(reply.status()).isEqualTo(400);
		assertThat(reply.json().path("errors").path(0).path("pointer").asString()).isEqualTo("#zone");
	}

	@Test
	void refusesAZoneNoInstanceCouldHaveNamingZone() {
		for (String zone : List.of("%00", "a%00b", "z".repeat(64), "", "a%20b", "%C3%A9", "%ED%9F%BF")) {
			Api.Reply reply = Api.unchecked(port).get(instances() + "?zone=" + zone);
			assertThat(reply.status()).as(zone + " -> " + reply.body()).isEqualTo(400);
			assertThat(reply.json().path("errors").path(0).path("pointer").asString()).as(zone + " -> " + reply.body())
				.isEqualTo("#zone");
		}
		// A lone surrogate in UTF-8 makes the whole query undecodable: refused before any
		// parameter is read.
		assertThat(Api.unchecked(port).get(instances() + "?zone=%ED%A0%80").status()).isEqualTo(400);
	}

	private void maintenance(String id) {
		Api.Reply reply = api.send("POST", instances() + "/" + id + "/maintenance", "{\"reason\":\"disk\"}", null);
		assertThat(reply.status()).as(reply.body()).isBetween(200, 202);
	}

	private List<Integer> weights(String query) {
		return effective(api.get(instances() + query).json());
	}

	private static List<Integer> effective(JsonNode list) {
		return list.get("instances").valueStream().map(i -> i.get("effectiveWeight").intValue()).toList();
	}

	private String instances() {
		return "/v1/services/%s/instances".formatted(service);
	}

}
