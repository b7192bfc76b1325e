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
 * as zone Z's view (docs/locality.md): a snapshot of each when it opens, then an upsert
 * of each instance whose weight in Z's view moved, when and only when one does. Two
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
	void sendsEachServiceAsTheZonesViewThenTheInstancesWhoseWeightInItMoved() {
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

			// One of zone za's three of a goes: zone za's view of a spills to zb, every
			// instance's weight in it moves at the maintenance's revision.
			long spilled = maintenance(a, "a2");
			List<Event> spill = step(stream, second.id());
			assertThat(spill).extracting(Event::name).containsOnly("upsert");
			assertThat(spill).extracting(MultiplexedZoneWatchTest::service).containsOnly(a);
			assertThat(spill).extracting(e -> e.json().get("revision").longValue()).containsOnly(spilled);
			assertThat(weights(spill)).as("one out: za lacks 6.66%%, and zb of a has 40%% to spare")
				.containsExactly("a1=4667", "a2=0", "a3=4667", "b1=222", "b2=222", "b3=222");
			assertThat(spill.getLast().id()).contains(a + ":" + spilled);

			// The second goes: a2 stays at 0 in the view, so it is not sent again.
			maintenance(a, "a3");
			List<Event> capped = step(stream, spill.getLast().id());
			assertThat(weights(capped)).containsExactly("a1=8000", "a3=0", "b1=667", "b2=667", "b3=666");
			assertThat(stream.eventWithin(Duration.ofMillis(500))).isNull();
			last = capped.getLast().id();
		}

		// A zone's stream that resumes while no other stream of the zone kept its steps
		// gets a changed service's current view; a service it is current in, nothing.
		maintenance(b, "a2");
		try (EventStream resumed = EventStream.open(port, path, last)) {
			Event one = resumed.nextEvent(SOON);
			assertThat(one.name()).isEqualTo("snapshot");
			assertThat(service(one)).isEqualTo(b);
			// b: zone za has 200 of 300 and lacks 6.66%, and zone zb of b, one out, has
			// nothing to spare.
			assertThat(effective(one)).containsExactly(100, 0, 100, 0, 0, 0);
			assertThat(resumed.eventWithin(Duration.ofMillis(500))).isNull();
		}
	}

	/**
	 * The events of one step of a zone's view: the id moves with its last event only, so
	 * events are read until it moves.
	 */
	private static List<Event> step(EventStream stream, String idBefore) {
		List<Event> events = new java.util.ArrayList<>();
		while (events.isEmpty() || events.getLast().id().equals(idBefore)) {
			Event event = stream.nextEvent(SOON);
			assertThat(event).as("the step's events, after %s: %s", idBefore, events).isNotNull();
			events.add(event);
		}
		return events;
	}

	private static List<String> weights(List<Event> events) {
		return events.stream()
			.map(e -> e.json().get("id").asString() + "=" + e.json().get("effectiveWeight").intValue())
			.toList();
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

	/** Puts the instance in maintenance; its revision. */
	private long maintenance(String service, String id) {
		Api.Reply reply = api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id),
				"{\"reason\":\"disk\"}", null);
		assertThat(reply.status()).as(reply.body()).isEqualTo(202);
		return reply.json().get("revision").longValue();
	}

	private static String service(Event event) {
		return event.json().get("service").asString();
	}

	private static List<Integer> effective(Event event) {
		JsonNode list = event.json();
		return list.get("instances").valueStream().map(i -> i.get("effectiveWeight").intValue()).toList();
	}

}
