package dev.ballast;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Node;
import dev.ballast.support.Registration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM: requests in flight are answered, watch streams are told to reconnect
 * elsewhere, absorbed heartbeats reach the database, and the embedded PostgreSQL stops
 * cleanly, so the next start needs no recovery.
 */
class GracefulShutdownIT {

	private static final String INSTANCE = "/v1/services/calm/instances/a";

	@TempDir
	Path dataDir;

	@Test
	void aStoppedNodeFinishesItsWorkAndLeavesNothingBehind() throws Exception {
		Path firstLog = Path.of("target", "graceful-shutdown-it-before.log");
		Path secondLog = Path.of("target", "graceful-shutdown-it-after.log");
		Files.deleteIfExists(firstLog);
		Files.deleteIfExists(secondLog);
		// Absorbed heartbeats reach the database only when the node stops.
		Map<String, Integer> writesInFlight;
		Node node = Node.start(dataDir, firstLog, "--ballast.lease.flush-interval=1h");
		Api api = Api.on(node.port());
		Api.Reply registered = api.put(INSTANCE, Registration.at("h", 80).leaseTtlSeconds(300));
		assertThat(registered.status()).isEqualTo(201);
		Instant registeredExpiry = Instant.parse(registered.json().get("leaseExpiresAt").asString());
		Thread.sleep(1_500);
		assertThat(api.send("POST", INSTANCE + "/heartbeat", null, null).status()).isEqualTo(200);
		assertThat(Instant.parse(api.get(INSTANCE).json().get("leaseExpiresAt").asString()))
			.as("the heartbeat is absorbed, not written yet")
			.isEqualTo(registeredExpiry);

		String index = api.get("/v1/services/calm/instances").header("X-Ballast-Index").orElseThrow();
		CompletableFuture<Api.Reply> parked = CompletableFuture.supplyAsync(
				() -> api.get("/v1/services/calm/instances?index=%s&wait=60s".formatted(index)),
				command -> Thread.ofPlatform().start(command));
		try (EventStream watch = EventStream.open(node.port(), "/v1/services/calm/watch", null)) {
			assertThat(watch.nextEvent(Duration.ofSeconds(10)).name()).isNotEqualTo("reconnect");
			Thread.sleep(500);
			assertThat(parked).as("the blocking query is parked").isNotDone();

			Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
			// Each refusal with its body: a status other than 503 then names what
			// answered it.
			Queue<String> refusals = new ConcurrentLinkedQueue<>();
			List<Thread> writers = new ArrayList<>();
			for (int w = 0; w < 3; w++) {
				int writer = w;
				writers.add(Thread.ofPlatform().start(() -> write(api, writer, acknowledged, refusals)));
			}
			while (acknowledged.size() < 10) {
				Thread.sleep(50);
			}

			long stopping = System.nanoTime();
			CompletableFuture<Integer> stopped = CompletableFuture.supplyAsync(() -> {
				try {
					return node.stop();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}, command -> Thread.ofPlatform().start(command));

			EventStream.Event reconnect = watch.nextEvent(Duration.ofSeconds(30));
			assertThat(reconnect.name()).isEqualTo("reconnect");
			assertThat(reconnect.json().get("reason").asString()).isEqualTo("shutdown");
			Api.Reply answered = parked.get(30, TimeUnit.SECONDS);
			assertThat(answered.status()).as("the parked blocking query was answered").isEqualTo(200);
			assertThat(stopped.get(70, TimeUnit.SECONDS)).isIn(0, 143);
			for (Thread writer : writers) {
				assertThat(writer.join(Duration.ofSeconds(30))).isTrue();
			}
			assertThat(refusals).as("writes refused while stopping are refused as unavailable, never failed")
				.allMatch(refusal -> refusal.startsWith("503 "));
			writesInFlight = acknowledged;
			System.out.printf("GracefulShutdownIT: %d writes refused with 503 while stopping%n", refusals.size());
			System.out.printf("GracefulShutdownIT: stopped %d ms after SIGTERM%n",
					Duration.ofNanos(System.nanoTime() - stopping).toMillis());
		}
		assertThat(dataDir.resolve("postgres").resolve("postmaster.pid")).as("PostgreSQL stopped cleanly")
			.doesNotExist();
		assertThat(ProcessHandle.allProcesses()
			.filter(process -> process.info()
				.arguments()
				.map(args -> String.join(" ", args))
				.orElse("")
				.contains(dataDir.toString())))
			.as("no process of the node is left")
			.isEmpty();

		// No sweep on the restarted node: it would extend every lease by the time the
		// registry was down, which is not the heartbeat's doing.
		try (Node again = Node.start(dataDir, secondLog, "--ballast.lease.scheduled=false")) {
			Instant flushedExpiry = Instant
				.parse(Api.on(again.port()).get(INSTANCE).json().get("leaseExpiresAt").asString());
			assertThat(flushedExpiry).as("the heartbeat absorbed before the stop was written")
				.isAfterOrEqualTo(registeredExpiry.plusSeconds(1));
			Map<String, Integer> present = new HashMap<>();
			for (JsonNode instance : Api.on(again.port())
				.get("/v1/services/calm-writes/instances")
				.json()
				.get("instances")) {
				present.put(instance.get("id").asString(), instance.get("weight").asInt());
			}
			assertThat(present).as("every write acknowledged while the node stopped")
				.containsAllEntriesOf(writesInFlight);
			System.out.printf("GracefulShutdownIT: %d writes acknowledged around the SIGTERM%n", writesInFlight.size());
			String restart = Files.readString(secondLog);
			assertThat(restart).doesNotContain("Removing stale", "automatic recovery", "not properly shut down");
			assertThat(again.stop()).isIn(0, 143);
		}
	}

	/**
	 * Registers instances one after another until the node no longer takes connections,
	 * recording the acknowledged ones and the status of every other answer.
	 */
	private static void write(Api api, int writer, Map<String, Integer> acknowledged, Queue<String> refusals) {
		for (int n = 0;; n++) {
			String id = "w%d-%d".formatted(writer, n);
			int weight = n % 100;
			Api.Reply reply;
			try {
				reply = api.put("/v1/services/calm-writes/instances/" + id,
						Registration.at("h", 80).weight(weight).leaseTtlSeconds(300));
			}
			catch (RuntimeException ex) {
				return;
			}
			if (reply.status() / 100 == 2) {
				acknowledged.put(id, weight);
			}
			else {
				refusals.add(reply.status() + " " + reply.body());
			}
		}
	}

}
