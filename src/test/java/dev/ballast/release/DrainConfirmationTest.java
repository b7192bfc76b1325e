package dev.ballast.release;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain is DRAINED only when every live subscriber has acknowledged weight 0, or when
 * the confirmation times out (4 s here), naming the subscribers that never did; here a
 * subscriber is dropped after 2 s of silence.
 */
@RegistryTest
@TestPropertySource(properties = { "ballast.drain.confirm-timeout=4s", "ballast.watch.subscriber-ttl=2s" })
class DrainConfirmationTest {

	@LocalServerPort
	int port;

	@Test
	void waitsForTheAcknowledgementOfEveryLiveSubscriber() throws Exception {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "confirmed", 4, null);
		long index = api.get("/v1/services/%s/instances".formatted(service)).json().get("revision").asLong();
		api.get("/v1/services/%s/instances?index=%d&wait=10ms&subscriber=lb-1".formatted(service, index));

		JsonNode draining = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}").json();
		assertThat(draining.get("mode").asString()).as("weight 0, not yet confirmed").isEqualTo("DRAINING");
		assertThat(draining.get("effectiveWeight").asInt()).isZero();
		long zero = draining.get("revision").asLong();

		// The instance's preStop hook waits on itself for the drain to complete.
		CompletableFuture<Api.Reply> preStop = CompletableFuture
			.supplyAsync(() -> api.get("/v1/services/%s/instances/i0?index=%d&wait=20s".formatted(service, zero)));
		Thread.sleep(1500);
		assertThat(preStop).as("no acknowledgement yet").isNotDone();

		api.get("/v1/services/%s/instances?index=%d&wait=10ms&subscriber=lb-1".formatted(service, zero));
		Api.Reply drained = preStop.get(10, TimeUnit.SECONDS);
		assertThat(drained.json().get("mode").asString()).isEqualTo("DRAINED");
		assertThat(drained.json().has("unconfirmedSubscribers")).isFalse();
	}

	@Test
	void completesAfterTheTimeoutNamingWhoNeverConfirmed() throws Exception {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "silent", 4, null);
		try (EventStream silent = EventStream.open(port,
				"/v1/services/%s/watch?subscriber=lb-silent".formatted(service), null)) {
			silent.nextEvent(Duration.ofSeconds(5));
			long started = System.nanoTime();
			JsonNode draining = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}").json();
			Api.Reply drained = api.get("/v1/services/%s/instances/i0?index=%d&wait=20s".formatted(service,
					draining.get("revision").asLong()));
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(drained.json().get("mode").asString()).isEqualTo("DRAINED");
			assertThat(drained.json().get("unconfirmedSubscribers").valueStream().map(JsonNode::asString))
				.containsExactly("lb-silent");
			assertThat(took).isBetween(Duration.ofMillis(3500), Duration.ofSeconds(10));
		}
	}

	@Test
	void withoutSubscribersADrainCompletesAtWeightZero() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "alone", 4, null);
		ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}");
		ReleaseModesTest.awaitMode(api, service, "i0", "DRAINED");
	}

	/**
	 * A balancer cut off from the registry stops polling and is dropped as a subscriber;
	 * it may still route to the instance, so the drain must not count it as confirmed.
	 */
	@Test
	void aSubscriberThatFallsSilentDuringTheDrainIsListedAsUnconfirmed() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "ghost", 4, null);
		long index = api.get("/v1/services/%s/instances".formatted(service)).json().get("revision").asLong();
		api.get("/v1/services/%s/instances?index=%d&wait=10ms&subscriber=ghost".formatted(service, index));
		JsonNode draining = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}").json();
		assertThat(draining.get("mode").asString()).isEqualTo("DRAINING");
		Api.Reply drained = api.get(
				"/v1/services/%s/instances/i0?index=%d&wait=20s".formatted(service, draining.get("revision").asLong()));
		assertThat(drained.json().get("mode").asString()).isEqualTo("DRAINED");
		assertThat(drained.json().get("unconfirmedSubscribers").valueStream().map(JsonNode::asString))
			.containsExactly("ghost");
	}

}
