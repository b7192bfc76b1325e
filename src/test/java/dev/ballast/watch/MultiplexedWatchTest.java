package dev.ballast.watch;

import java.time.Duration;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** One stream over several services, and its resumable position vector. */
@RegistryTest
class MultiplexedWatchTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Test
	void tagsEveryEventWithItsServiceAndResumesEachServiceExactly() {
		Api api = Api.on(port);
		String a = Names.service("mux-a");
		String b = Names.service("mux-b");
		api.put("/v1/services/%s/instances/x".formatted(a), Registration.at("h", 80));
		api.put("/v1/services/%s/instances/y".formatted(b), Registration.at("h", 80));
		api.put("/v1/services/%s/instances/z".formatted(b), Registration.at("h", 81));
		String path = "/v1/watch?service=%s&service=%s".formatted(b, a);

		String last;
		try (EventStream stream = EventStream.open(port, path, null)) {
			Event first = stream.nextEvent(SOON);
			Event second = stream.nextEvent(SOON);
			assertThat(first.name()).isEqualTo("snapshot");
			assertThat(second.name()).isEqualTo("snapshot");
			assertThat(first.json().get("service").asString()).isEqualTo(a);
			assertThat(first.id()).isEqualTo(a + ":1");
			assertThat(second.json().get("service").asString()).isEqualTo(b);
			assertThat(second.id()).isEqualTo(a + ":1," + b + ":2");

			// Weights raised, not lowered: the guard holds lowered ones to the budget.
			api.patch("/v1/services/%s/instances/y".formatted(b), "{\"weight\":300}");
			Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.json().get("service").asString()).isEqualTo(b);
			assertThat(upsert.id()).isEqualTo(a + ":1," + b + ":3");
			last = upsert.id();
		}
		api.delete("/v1/services/%s/instances/x".formatted(a));
		api.patch("/v1/services/%s/instances/z".formatted(b), "{\"weight\":400}");

		try (EventStream resumed = EventStream.open(port, path, last)) {
			Event one = resumed.nextEvent(SOON);
			Event two = resumed.nextEvent(SOON);
			assertThat(one.name()).isEqualTo("remove");
			assertThat(one.json().get("service").asString()).isEqualTo(a);
			assertThat(one.id()).isEqualTo(a + ":2," + b + ":3");
			assertThat(two.name()).isEqualTo("upsert");
			assertThat(two.json().get("service").asString()).isEqualTo(b);
			assertThat(two.id()).isEqualTo(a + ":2," + b + ":4");
			assertThat(resumed.eventWithin(Duration.ofMillis(500))).isNull();
		}

		try (EventStream partly = EventStream.open(port, path, b + ":4")) {
			Event only = partly.nextEvent(SOON);
			assertThat(only.name()).as("a service missing from the id starts with a snapshot").isEqualTo("snapshot");
			assertThat(only.json().get("service").asString()).isEqualTo(a);
			assertThat(partly.eventWithin(Duration.ofMillis(500))).isNull();
		}
	}

	@Test
	void refusesAStreamWithoutValidServices() {
		Api api = Api.on(port);
		assertThat(api.get("/v1/watch").status()).isEqualTo(400);
		Api.Reply bad = api.get("/v1/watch?service=Not_Valid");
		assertThat(bad.status()).isEqualTo(400);
		assertThat(bad.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#service");
	}

}
