package dev.ballast.watch;

import java.time.Duration;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /v1/watch?service=a&service=b&zone=Z}: one stream of several services, each sent
 * as zone Z's view (docs/locality.md): a snapshot of each when it opens or resumes, then
 * a snapshot of a service when, and only when, Z's weights of that service change. Two
 * services of two zones of three at weight 100 each, a cap of 20%.
 */
@RegistryTest
class MultiplexedZoneWatchTest {

	static final Duration SOON = Duration.ofSeconds(10);

	@LocalServerPort
	int port;

	Api api;

	String a;

	String b;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		a = Names.service("muxz-a");
		b = Names.service("muxz-b");
		for (String service : List.of(a, b)) {
			for (String id : List.of("a1", "a2", "a3", "b1", "b2", "b3")) {
				Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
						Registration.at("10.0.0." + (id.charAt(1) - '0'), 8000 + id.charAt(0))
							.weight(100)
							.zone("z" + id.charAt(0))
							.leaseTtlSeconds(300));
				assertThat(reply.status()).as(reply.body()).isEqualTo(201);
			}
			Api.Reply set = api.patch("/v1/services/" + service,
					"{\"maxUnroutable\":\"100%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");
			assertThat(set.status()).as(set.body()).isEqualTo(200);
		}
	}

	@Test
	void sendsEachServiceAsTheZonesViewWhenItsWeightsChangeAndOnlyThen() {
		String path = "/v1/watch?service=%s&service=%s&zone=za".formatted(a, b);
		String last;
		try (EventStream stream = EventStream.open(port, path, null)) {
			Event first = stream.nextEvent(SOON);
			Event second = stream.nextEvent(SOON);
			assertThat(List.of(first.name(), second.name())).containsExactly("snapshot", "snapshot");
			assertThat(List.of(service(first), service(second))).containsExactly(a, b);
			assertThat(effective(first)).containsExactly(100, 100, 100, 0, 0, 0);
			assertThat(effective(second)).containsExactly(100, 100, 100, 0, 0, 0);

			// Zone zb of b loses one of three: nothing changes in zone za's view of b.
			maintenance(b, "b1");
			assertThat(stream.eventWithin(Duration.ofSeconds(1))).isNull();

			// Two of zone za's three of a go: zone za's view of a spills 20% to zb.
			maintenance(a, "a2");
			Event spilling = stream.nextEvent(SOON);
			assertThat(spilling.name()).isEqualTo("snapshot");
			assertThat(service(spilling)).isEqualTo(a);
			assertThat(effective(spilling)).as("one out: za lacks 6.66%%, and zb of a has 40%% to spare")
				.containsExactly(4667, 0, 4667, 222, 222, 222);
			maintenance(a, "a3");
			Event capped = stream.nextEvent(SOON);
			assertThat(service(capped)).isEqualTo(a);
			assertThat(effective(capped)).containsExactly(8000, 0, 0, 667, 667, 666);
			assertThat(stream.eventWithin(Duration.ofMillis(500))).isNull();
			last = capped.id();
		}

		// A zone's stream that resumes gets each service's current view, whatever it
		// missed.
		maintenance(b, "a2");
		try (EventStream resumed = EventStream.open(port, path, last)) {
			Event one = resumed.nextEvent(SOON);
			Event two = resumed.nextEvent(SOON);
			assertThat(List.of(one.name(), two.name())).containsExactly("snapshot", "snapshot");
			assertThat(List.of(service(one), service(two))).containsExactly(a, b);
			assertThat(effective(one)).containsExactly(8000, 0, 0, 667, 667, 666);
			// b: zone za has 200 of 300 and lacks 6.66%, and zone zb of b, one out, has
			// nothing to spare.
			assertThat(effective(two)).containsExactly(100, 0, 100, 0, 0, 0);
			assertThat(resumed.eventWithin(Duration.ofMillis(500))).isNull();
		}
	}

	@Test
	void theFlatMultiplexedStreamIsUnchangedWithoutAZone() {
		try (EventStream stream = EventStream.open(port, "/v1/watch?service=%s&service=%s".formatted(a, b), null)) {
			stream.nextEvent(SOON);
			stream.nextEvent(SOON);
			maintenance(b, "b1");
			Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.json().get("id").asString()).isEqualTo("b1");
		}
	}

	@Test
	void refusesAZoneNoInstanceCouldHaveNamingZone() {
		for (String zone : List.of("%00", "a%20b", "z".repeat(64), "")) {
			Api.Reply reply = Api.unchecked(port).get("/v1/watch?service=%s&zone=%s".formatted(a, zone));
			assertThat(reply.status()).as(zone + " -> " + reply.body()).isEqualTo(400);
			assertThat(reply.json().path("errors").path(0).path("pointer").asString()).isEqualTo("#zone");
		}
	}

	private void maintenance(String service, String id) {
		Api.Reply reply = api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id),
				"{\"reason\":\"disk\"}", null);
		assertThat(reply.status()).as(reply.body()).isEqualTo(202);
	}

	private static String service(Event event) {
		return event.json().get("service").asString();
	}

	private static List<Integer> effective(Event event) {
		JsonNode list = event.json();
		return list.get("instances").valueStream().map(i -> i.get("effectiveWeight").intValue()).toList();
	}

}
