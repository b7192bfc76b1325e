package dev.ballast.probe;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import dev.ballast.support.Api;
import dev.ballast.support.LinkProxy;
import dev.ballast.support.OtherNode;
import dev.ballast.support.OutageDatabase;
import dev.ballast.support.TestDatabase;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node alone on a PostgreSQL of its own (so that it probes every check), reached
 * through a link the test can black-hole: a verdict the database could not take is stored
 * once it is back, and one service's stuck checks leave another's on time when the node
 * has few probe slots.
 */
class ProbeIsolationTest {

	@TempDir
	static Path directory;

	static OutageDatabase postgres;

	static LinkProxy link;

	static OtherNode node;

	final TestTargets targets = new TestTargets();

	@BeforeAll
	static void startDatabaseLinkAndNode() throws IOException {
		postgres = OutageDatabase.startIn(directory);
		link = LinkProxy.toDatabase(postgres.jdbcUrl());
		// A long handover keeps the node probing through the cut below (it stops once its
		// last beat is older than the handover), so that a verdict is reached while the
		// database cannot take it.
		node = OtherNode.startOn(new TestDatabase.Server(link.through(postgres.jdbcUrl()), "postgres", ""),
				"ballast.checks.handover=10s", "ballast.checks.max-concurrent=8",
				"ballast.checks.max-concurrent-per-service=4");
	}

	@AfterEach
	void healTheLinkAndCloseTargets() throws Exception {
		link.forward();
		targets.close();
	}

	@AfterAll
	static void stopEverything() throws IOException {
		try (OutageDatabase database = postgres; LinkProxy proxy = link; OtherNode probing = node) {
			// Closed in reverse order: the node, the link, the database.
		}
	}

	@Test
	void aVerdictTheDatabaseCouldNotTakeIsStoredOnceItIsBack() throws Exception {
		Api api = Api.on(node.port());
		String service = "paused";
		TestTargets.Answering target = targets.answering(200);
		register(api, service, "a", target.port(), 300);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> target.hits().get() >= 2);
		// The database stops answering, and meanwhile the target fails.
		link.blackHole();
		target.answer(500);
		int hits = target.hits().get();
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> target.hits().get() >= hits + 2);
		Thread.sleep(6000);
		link.forward();
		long back = System.nanoTime();
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> health(api, service, "a").equals("CRITICAL"));
		System.out.printf("critical %d ms after the database came back%n", (System.nanoTime() - back) / 1_000_000);
	}

	@Test
	void oneServicesStuckChecksLeaveAnotherServicesChecksOnTime() {
		Api api = Api.on(node.port());
		String hog = "hog";
		for (String id : new String[] { "h1", "h2" }) {
			TestTargets.Trickling trickling = targets.tlsTrickling();
			StringBuilder checks = new StringBuilder();
			for (int check = 0; check < 8; check++) {
				checks.append(check == 0 ? "" : ",")
					.append("{\"http\":\"https://127.0.0.1:%d/h%d\",\"tlsSkipVerify\":true,\"intervalSeconds\":1,\"timeoutMillis\":900}"
						.formatted(trickling.port(), check));
			}
			Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(hog, id),
					"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":300,\"checks\":[%s]}"
						.formatted(trickling.port(), checks));
			assertThat(reply.status()).as(reply.body()).isIn(200, 201);
		}
		String canary = "canary";
		TestTargets.Answering target = targets.answering(200);
		int other = targets.answering(200).port();
		register(api, canary, "c", target.port(), 300);
		register(api, canary, "steady", other, 300);
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> target.hits().get() >= 3);
		target.answer(500);
		long failed = System.nanoTime();
		// Two intervals of 1 s, the 300 ms timeout and the write, with room for a busy
		// machine.
		Awaitility.await()
			.atMost(Duration.ofSeconds(4))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> health(api, canary, "c").equals("CRITICAL"));
		System.out.printf("canary critical %d ms after its target failed%n", (System.nanoTime() - failed) / 1_000_000);
	}

	private static void register(Api api, String service, String id, int port, int timeoutMillis) {
		Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id),
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":300,\"checks\":[{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":%d}]}"
					.formatted(port, port, timeoutMillis));
		assertThat(reply.status()).as(reply.body()).isIn(200, 201);
	}

	/** The instance's health, or the answer's status while the node cannot say it. */
	private static String health(Api api, String service, String id) {
		Api.Reply reply = api.get("/v1/services/%s/instances/%s".formatted(service, id));
		JsonNode health = reply.status() == 200 ? reply.json().path("health") : null;
		return health != null && health.isString() ? health.stringValue() : "answered " + reply.status();
	}

}
