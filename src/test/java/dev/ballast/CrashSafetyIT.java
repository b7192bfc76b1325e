package dev.ballast;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.ballast.support.Api;
import dev.ballast.support.Node;
import dev.ballast.support.Registration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node killed with SIGKILL in the middle of a stream of writes, a drain and a release:
 * after a restart on the same data directory every acknowledged write is there, and the
 * drain and the release carry on by themselves.
 */
class CrashSafetyIT {

	private static final int WRITERS = 3;

	private static final String WRITES = "/v1/services/crash-writes/instances/";

	private static final String DRAINED = "/v1/services/crash-drain/instances/d0";

	@TempDir
	Path dataDir;

	@Test
	void everyAcknowledgedWriteSurvivesAKillAndTheDrainAndReleaseResume() throws Exception {
		Path firstLog = Path.of("target", "crash-safety-it-before.log");
		Path secondLog = Path.of("target", "crash-safety-it-after.log");
		Files.deleteIfExists(firstLog);
		Files.deleteIfExists(secondLog);
		Node first = Node.start(dataDir, firstLog);
		Api api = Api.on(first.port());
		for (int i = 0; i < 4; i++) {
			register(api, "crash-drain", "d" + i, 100, Map.of());
			register(api, "crash-release", "b" + i, 100, Map.of("color", "blue"));
			register(api, "crash-release", "g" + i, 100, Map.of("color", "green"));
		}
		// The writers also patch an instance of their own after each registration.
		Map<String, Acknowledged> acknowledged = new ConcurrentHashMap<>();
		AtomicBoolean killed = new AtomicBoolean();
		AtomicInteger writes = new AtomicInteger();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		List<Thread> writers = new ArrayList<>();
		for (int w = 0; w < WRITERS; w++) {
			int writer = w;
			writers.add(Thread.ofPlatform().name("crash-writer-" + w).start(() -> {
				try {
					write(api, writer, acknowledged, writes, killed);
				}
				catch (Throwable ex) {
					failure.set(ex);
				}
			}));
		}
		assertThat(api.send("POST", DRAINED + "/drain", "{\"durationSeconds\":20}", null).status()).isEqualTo(202);
		JsonNode release = api
			.send("POST", "/v1/services/crash-release/releases",
					"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":[5,10,20,40,60,80,100],"
							+ "\"stepIntervalSeconds\":2}",
					null)
			.json();
		long releaseId = release.get("id").asLong();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> acknowledged.size() >= 30 && api.get(DRAINED).json().get("effectiveWeight").asInt() < 100);
		JsonNode drainBeforeKill = api.get(DRAINED).json();
		JsonNode releaseBeforeKill = api.get("/v1/services/crash-release/releases/" + releaseId).json();

		// The whole node is lost, as in a power cut: the JVM and its PostgreSQL server
		// with every backend, so the restart has to recover from the write-ahead log.
		ProcessHandle postgres = ProcessHandle
			.of(Long
				.parseLong(Files.readAllLines(dataDir.resolve("postgres").resolve("postmaster.pid")).get(0).strip()))
			.orElseThrow();
		List<ProcessHandle> backends = postgres.descendants().toList();
		killed.set(true);
		first.kill();
		postgres.destroyForcibly();
		backends.forEach(ProcessHandle::destroyForcibly);
		assertThat(postgres.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
		for (Thread writer : writers) {
			assertThat(writer.join(Duration.ofSeconds(40))).as("writer stopped").isTrue();
		}
		assertThat(failure.get()).as("a writer failed before the kill").isNull();
		int writesBeforeKill = writes.get();
		// Killed in the middle of everything: what completes it is the restarted node.
		assertThat(drainBeforeKill.get("mode").asString()).isEqualTo("DRAINING");
		assertThat(drainBeforeKill.get("effectiveWeight").asInt()).isBetween(1, 99);
		assertThat(releaseBeforeKill.get("state").asString()).isEqualTo("ACTIVE");
		assertThat(releaseBeforeKill.get("percent").asInt()).isLessThan(100);

		try (Node second = Node.start(dataDir, secondLog)) {
			Api after = Api.on(second.port());
			Map<String, JsonNode> present = new java.util.HashMap<>();
			for (JsonNode instance : after.get("/v1/services/crash-writes/instances").json().get("instances")) {
				present.put(instance.get("id").asString(), instance);
			}
			assertThat(present.keySet()).containsAll(acknowledged.keySet());
			acknowledged.forEach((id, ack) -> {
				JsonNode instance = present.get(id);
				long revision = instance.get("revision").asLong();
				// A write that was in flight at the kill may have committed after the
				// last acknowledgement; nothing acknowledged may be older than what is
				// there.
				assertThat(revision).as(id).isGreaterThanOrEqualTo(ack.revision());
				if (revision == ack.revision()) {
					assertThat(instance.get("weight").asInt()).as(id).isEqualTo(ack.weight());
				}
			});
			await().atMost(Duration.ofSeconds(60))
				.until(() -> after.get(DRAINED).json().get("mode").asString().equals("DRAINED"));
			assertThat(after.get(DRAINED).json().get("effectiveWeight").asInt()).isZero();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> after.get("/v1/services/crash-release/releases/" + releaseId)
					.json()
					.get("state")
					.asString()
					.equals("COMPLETED"));
			System.out.printf(
					"CrashSafetyIT: %d acknowledged writes (%d instances) before SIGKILL; restart took %d ms%n",
					writesBeforeKill, acknowledged.size(), second.startup().toMillis());
			assertThat(Files.readString(secondLog)).as("PostgreSQL recovered from the crash")
				.contains("Removing stale", "automatic recovery in progress");
		}
	}

	private static void register(Api api, String service, String id, int weight, Map<String, String> metadata) {
		String labels = metadata.isEmpty() ? "{}" : "{\"color\":\"%s\"}".formatted(metadata.get("color"));
		assertThat(api
			.put("/v1/services/%s/instances/%s".formatted(service, id),
					Registration.at("h", 80).weight(weight).leaseTtlSeconds(300).member("metadata", labels))
			.status()).isIn(200, 201);
	}

	/**
	 * Registers {@code w<writer>-<n>} and then patches its weight, one request at a time,
	 * recording each acknowledged state, until the node is killed.
	 */
	private static void write(Api api, int writer, Map<String, Acknowledged> acknowledged, AtomicInteger writes,
			AtomicBoolean killed) {
		for (int n = 0; !killed.get(); n++) {
			String id = "w%d-%d".formatted(writer, n);
			try {
				Api.Reply registered = api.put(WRITES + id,
						Registration.at("h", 80).weight(n % 100).leaseTtlSeconds(300));
				if (registered.status() / 100 != 2) {
					continue;
				}
				acknowledged.put(id, new Acknowledged(n % 100, registered.json().get("revision").asLong()));
				writes.incrementAndGet();
				Api.Reply patched = api.patch(WRITES + id, "{\"weight\":%d}".formatted(n % 100 + 1));
				if (patched.status() / 100 == 2) {
					acknowledged.put(id, new Acknowledged(n % 100 + 1, patched.json().get("revision").asLong()));
					writes.incrementAndGet();
				}
			}
			catch (RuntimeException ex) {
				// The node is gone: every write from here on is unacknowledged.
				if (killed.get()) {
					return;
				}
				throw ex;
			}
		}
	}

	/** The last acknowledged state of one instance. */
	private record Acknowledged(int weight, long revision) {
	}

}
