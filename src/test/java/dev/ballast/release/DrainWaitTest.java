package dev.ballast.release;

import java.time.Duration;
import java.time.Instant;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain that waits for its subscribers says so, from its first answer on: which
 * subscribers have not acknowledged weight 0 yet ({@code unconfirmedSubscribers}) and
 * when it completes at the latest ({@code modeUntil}: the ramp plus the confirmation
 * timeout, 60 s by default).
 */
@RegistryTest
class DrainWaitTest {

	private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(60);

	@LocalServerPort
	int port;

	@Test
	void theDrainsAnswerNamesTheSubscribersItWaitsForAndUntilWhen() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "waits", 4, null);
		poll(api, service, "lb-1", revision(api, service));
		poll(api, service, "lb-2", revision(api, service));

		Instant asked = Instant.now();
		JsonNode draining = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}").json();
		Instant answered = Instant.now();

		assertThat(draining.get("mode").asString()).isEqualTo("DRAINING");
		assertThat(draining.get("effectiveWeight").asInt()).isZero();
		assertThat(names(draining)).containsExactly("lb-1", "lb-2");
		Instant until = Instant.parse(draining.get("modeUntil").asString());
		assertThat(until).isBetween(asked.plus(CONFIRM_TIMEOUT).minusSeconds(1),
				answered.plus(CONFIRM_TIMEOUT).plusSeconds(1));

		// lb-1 confirms: the instance then waits for lb-2 alone, until the same time.
		long zero = draining.get("revision").asLong();
		poll(api, service, "lb-1", zero);
		JsonNode waiting = api.get("/v1/services/%s/instances/i0?index=%d&wait=20s".formatted(service, zero)).json();
		assertThat(waiting.get("mode").asString()).isEqualTo("DRAINING");
		assertThat(names(waiting)).containsExactly("lb-2");
		assertThat(Instant.parse(waiting.get("modeUntil").asString())).isEqualTo(until);

		// lb-2 confirms: drained, with nothing left to wait for.
		poll(api, service, "lb-2", zero);
		JsonNode drained = api
			.get("/v1/services/%s/instances/i0?index=%d&wait=20s".formatted(service, waiting.get("revision").asLong()))
			.json();
		assertThat(drained.get("mode").asString()).isEqualTo("DRAINED");
		assertThat(drained.has("unconfirmedSubscribers")).isFalse();
		assertThat(drained.has("modeUntil")).isFalse();
	}

	@Test
	void aRampingDrainAlreadySaysWhomItWillWaitForAndItsLatestEnd() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "ramps", 4, null);
		try (EventStream watcher = EventStream.open(port, "/v1/services/%s/watch?subscriber=edge".formatted(service),
				null)) {
			watcher.nextEvent(Duration.ofSeconds(5));
			Instant asked = Instant.now();
			JsonNode draining = ReleaseModesTest.drain(api, service, "i1", "{\"durationSeconds\":30}").json();
			Instant answered = Instant.now();

			assertThat(draining.get("mode").asString()).isEqualTo("DRAINING");
			assertThat(draining.get("effectiveWeight").asInt()).isPositive();
			assertThat(names(draining)).containsExactly("edge");
			assertThat(Instant.parse(draining.get("modeUntil").asString())).isBetween(
					asked.plusSeconds(30).plus(CONFIRM_TIMEOUT).minusSeconds(1),
					answered.plusSeconds(30).plus(CONFIRM_TIMEOUT).plusSeconds(1));
		}
	}

	@Test
	void aDrainWithoutSubscribersWaitsForNobodyAndSaysNothingOfIt() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "unwatched", 4, null);
		JsonNode draining = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":30}").json();
		assertThat(draining.get("mode").asString()).isEqualTo("DRAINING");
		assertThat(draining.has("unconfirmedSubscribers")).isFalse();
		assertThat(draining.has("modeUntil")).isFalse();
	}

	private static long revision(Api api, String service) {
		return api.get("/v1/services/%s/instances".formatted(service)).json().get("revision").asLong();
	}

	/** A poller named {@code subscriber} that has applied {@code index}. */
	private static void poll(Api api, String service, String subscriber, long index) {
		assertThat(api
			.get("/v1/services/%s/instances?index=%d&wait=10ms&subscriber=%s".formatted(service, index, subscriber))
			.status()).isEqualTo(200);
	}

	private static java.util.List<String> names(JsonNode instance) {
		assertThat(instance.has("unconfirmedSubscribers")).as("unconfirmedSubscribers in %s", instance).isTrue();
		return instance.get("unconfirmedSubscribers").valueStream().map(JsonNode::asString).toList();
	}

}
