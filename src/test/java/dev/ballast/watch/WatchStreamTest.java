package dev.ballast.watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The single-service stream: snapshot, deltas, resume, settings changes. */
@RegistryTest
class WatchStreamTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Test
	void sendsSnapshotThenUpsertAndRemoveEventsWithRevisionIds() {
		Api api = Api.on(port);
		String service = Names.service("stream");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("10.0.0.1", 80).weight(300));
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("10.0.0.2", 80));

		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.response().headers().firstValue("Content-Type"))
				.hasValueSatisfying(type -> assertThat(type).startsWith("text/event-stream"));
			Event snapshot = stream.nextEvent(SOON);
			assertThat(snapshot.name()).isEqualTo("snapshot");
			assertThat(snapshot.id()).isEqualTo("2");
			JsonNode state = snapshot.json();
			assertThat(state.get("service").asString()).isEqualTo(service);
			assertThat(state.get("revision").asLong()).isEqualTo(2);
			assertThat(state.get("instances").valueStream().map(i -> i.get("id").asString())).containsExactly("a", "b");
			assertThat(state.get("instances").get(0).get("weight").isInt()).isTrue();

			api.patch(a + "?force=true", "{\"weight\":0}");
			Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.id()).isEqualTo("3");
			assertThat(upsert.json().get("id").asString()).isEqualTo("a");
			assertThat(upsert.json().get("revision").asLong()).isEqualTo(3);
			assertThat(upsert.json().get("weight").isInt()).isTrue();
			assertThat(upsert.json().get("weight").asInt()).isZero();
			assertThat(upsert.json().get("effectiveWeight").isInt()).isTrue();
			assertThat(upsert.json().get("routable").asBoolean()).isFalse();

			api.delete(a);
			Event remove = stream.nextEvent(SOON);
			assertThat(remove.name()).isEqualTo("remove");
			assertThat(remove.id()).isEqualTo("4");
			assertThat(remove.json().get("service").asString()).isEqualTo(service);
			assertThat(remove.json().get("id").asString()).isEqualTo("a");
			assertThat(remove.json().get("revision").asLong()).isEqualTo(4);
		}
	}

	/**
	 * A service with one stream gets its events from the committing thread, one with more
	 * than {@link StreamWriters#FEW} through the writers; under concurrent writers both
	 * see every revision once and in order.
	 */
	@Test
	void fewStreamsAndManyGetEveryRevisionInOrderUnderConcurrentWriters() throws Exception {
		Api api = Api.on(port);
		String few = Names.service("few");
		String many = Names.service("many");
		for (String service : List.of(few, many)) {
			api.put("/v1/services/%s/instances/seed".formatted(service), Registration.at("10.0.0.1", 80));
		}
		List<EventStream> streams = new ArrayList<>();
		ExecutorService writers = Executors.newFixedThreadPool(4);
		try {
			streams.add(EventStream.open(port, "/v1/services/%s/watch".formatted(few), null));
			for (int i = 0; i <= StreamWriters.FEW; i++) {
				streams.add(EventStream.open(port, "/v1/services/%s/watch".formatted(many), null));
			}
			for (EventStream stream : streams) {
				assertThat(stream.nextEvent(SOON).id()).as("snapshot at the seed").isEqualTo("1");
			}
			int each = 15;
			List<Future<?>> done = new ArrayList<>();
			for (int w = 0; w < 4; w++) {
				int writer = w;
				done.add(writers.submit(() -> {
					for (int i = 0; i < each; i++) {
						String service = (i + writer) % 2 == 0 ? few : many;
						int status = api
							.put("/v1/services/%s/instances/w%d".formatted(service, writer),
									Registration.at("10.0.1." + (writer + 1), 80).weight(i + 1))
							.status();
						assertThat(status).isIn(200, 201);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
			long fewLast = api.get("/v1/services/%s/instances".formatted(few)).json().get("revision").asLong();
			long manyLast = api.get("/v1/services/%s/instances".formatted(many)).json().get("revision").asLong();
			assertThat(fewLast + manyLast).as("every write is a change").isEqualTo(2 + 4 * each);
			for (int s = 0; s < streams.size(); s++) {
				long last = s == 0 ? fewLast : manyLast;
				for (long revision = 2; revision <= last; revision++) {
					assertThat(streams.get(s).nextEvent(SOON).id()).as("stream %d", s)
						.isEqualTo(Long.toString(revision));
				}
			}
		}
		finally {
			writers.shutdownNow();
			streams.forEach(EventStream::close);
		}
	}

	@Test
	void settingsChangeMovesTheIdWithoutAnEvent() {
		Api api = Api.on(port);
		String service = Names.service("settings");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(SOON).id()).isEqualTo("1");
			api.patch("/v1/services/" + service, "{\"defaultWeight\":7}");
			Event idOnly = stream.nextEvent(SOON);
			assertThat(idOnly.id()).isEqualTo("2");
			assertThat(idOnly.name()).as("no event: field, so the standard's default").isEqualTo("message");
			assertThat(idOnly.data()).isNull();
		}
	}

	@Test
	void resumingDeliversExactlyTheMissedChanges() {
		Api api = Api.on(port);
		String service = Names.service("resume");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80).weight(1));
		String last;
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			last = stream.nextEvent(SOON).id();
		}
		api.patch(a, "{\"weight\":2}");
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 81));
		api.delete(a);

		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), last)) {
			Event first = stream.nextEvent(SOON);
			assertThat(first.name()).isEqualTo("upsert");
			assertThat(first.id()).isEqualTo("2");
			assertThat(first.json().get("weight").asInt()).isEqualTo(2);
			Event second = stream.nextEvent(SOON);
			assertThat(second.name()).isEqualTo("upsert");
			assertThat(second.id()).isEqualTo("3");
			assertThat(second.json().get("id").asString()).isEqualTo("b");
			Event third = stream.nextEvent(SOON);
			assertThat(third.name()).isEqualTo("remove");
			assertThat(third.id()).isEqualTo("4");
			assertThat(stream.eventWithin(Duration.ofMillis(500))).isNull();
		}
		try (EventStream upToDate = EventStream.open(port, "/v1/services/%s/watch".formatted(service), "4")) {
			assertThat(upToDate.eventWithin(Duration.ofMillis(500))).as("nothing missed, nothing sent").isNull();
		}
	}

	@Test
	void anUnusableLastEventIdStartsOverWithASnapshot() {
		Api api = Api.on(port);
		String service = Names.service("garbage");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		for (String lastEventId : new String[] { "nonsense", "-1", "99", "x:1" }) {
			try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), lastEventId)) {
				Event first = stream.nextEvent(SOON);
				assertThat(first.name()).as(lastEventId).isEqualTo("snapshot");
				assertThat(first.id()).isEqualTo("1");
			}
		}
	}

	@Test
	void refusesBadNames() {
		Api api = Api.on(port);
		assertThat(api.get("/v1/services/Bad_Name/watch").status()).isEqualTo(422);
		String service = Names.service("badsub");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		Api.Reply reply = api.get("/v1/services/%s/watch?subscriber=no%%20spaces".formatted(service));
		assertThat(reply.status()).isEqualTo(400);
		assertThat(reply.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#subscriber");
	}

	/**
	 * Streams that clients dropped are closed when the next events reach them; that must
	 * never end another, newer stream.
	 */
	@Test
	void closingADroppedStreamNeverEndsAnother() {
		Api api = Api.on(port);
		String service = Names.service("dropped");
		String a = "/v1/services/%s/instances/a".formatted(service);
		// A lease that outlives the test even on a loaded machine: its expiry would send
		// an event of its own (health CRITICAL) where the test expects silence.
		api.put(a, Registration.at("h", 80).leaseTtlSeconds(300));
		String path = "/v1/services/%s/watch".formatted(service);
		for (int round = 0; round < 15; round++) {
			String last;
			try (EventStream dropped = EventStream.open(port, path, null)) {
				last = dropped.nextEvent(SOON).id();
			}
			api.patch(a, "{\"weight\":%d}".formatted(2 * round + 1));
			api.patch(a, "{\"weight\":%d}".formatted(2 * round + 2));
			try (EventStream next = EventStream.open(port, path, last)) {
				assertThat(next.nextEvent(SOON).name()).isEqualTo("upsert");
				assertThat(next.nextEvent(SOON).name()).isEqualTo("upsert");
				api.patch(a, "{\"weight\":%d}".formatted(1000 + round));
				assertThat(next.nextEvent(SOON).name()).as("round %d", round).isEqualTo("upsert");
				assertThat(next.eventWithin(Duration.ofMillis(200))).as("round %d", round).isNull();
			}
		}
	}

}
