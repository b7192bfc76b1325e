package dev.ballast.watch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The per-token cap on open streams ({@code ballast.watch.max-streams-per-token}): one
 * token's streams opened all at once, past its cap, on a node of its own that has a cap
 * of three.
 */
@RegistryTest
class StreamsPerTokenTest {

	private static final int CAP = 3;

	private static final int RACERS = 8;

	@LocalServerPort
	int port;

	@Test
	void aTokenPastItsCapOfOpenStreamsIsShedWithRetryAfterAndOtherTokensAreNot() throws Exception {
		Api admin = Api.on(port);
		String service = Names.service("capped");
		admin.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1));
		Api.Reply created = admin.send("POST", "/v1/tokens", "{\"name\":\"greedy\",\"role\":\"reader\"}", null);
		assertThat(created.status()).isEqualTo(201);
		String secret = created.json().get("token").asString();
		String path = "/v1/services/%s/watch".formatted(service);
		ExecutorService racers = Executors.newFixedThreadPool(RACERS);
		List<EventStream> opened = new ArrayList<>();
		// A keepalive each second, so the node soon notices a stream the client closed.
		try (OtherNode node = OtherNode.start("ballast.watch.max-streams-per-token=" + CAP,
				"ballast.watch.keepalive=1s")) {
			CyclicBarrier start = new CyclicBarrier(RACERS);
			List<Future<EventStream>> opening = new ArrayList<>();
			for (int i = 0; i < RACERS; i++) {
				opening.add(racers.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return EventStream.open(node.port(), path, null, secret);
				}));
			}
			List<String> refusals = new ArrayList<>();
			for (Future<EventStream> stream : opening) {
				try {
					opened.add(stream.get(30, TimeUnit.SECONDS));
				}
				catch (java.util.concurrent.ExecutionException ex) {
					refusals.add(ex.getCause().getMessage());
				}
			}

			assertThat(opened).as("streams accepted of %d opened at once", RACERS).hasSize(CAP);
			assertThat(refusals).hasSize(RACERS - CAP)
				.allSatisfy(refusal -> assertThat(refusal).contains("503").contains("maximum of " + CAP));
			Api.Reply refused = Api.on(node.port()).as(secret).get(path);
			assertThat(refused.status()).isEqualTo(503);
			assertThat(refused.header("Retry-After")).isPresent();
			try (EventStream other = EventStream.open(node.port(), path, null)) {
				assertThat(other.nextEvent(Duration.ofSeconds(10)).name()).as("another token's stream")
					.isEqualTo("snapshot");
			}

			opened.removeFirst().close();
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
				EventStream again = EventStream.open(node.port(), path, null, secret);
				opened.add(again);
			});
		}
		finally {
			opened.forEach(EventStream::close);
			racers.shutdownNow();
		}
	}

}
