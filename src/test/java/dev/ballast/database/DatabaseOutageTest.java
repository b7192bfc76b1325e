package dev.ballast.database;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.OutageNode;
import dev.ballast.support.Registration;
import io.micrometer.core.instrument.MeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose PostgreSQL stops and comes back: writes are refused fast with 503 and
 * Retry-After; reads, blocking queries and streams keep serving the last known state,
 * marked stale; heartbeats are absorbed and written afterwards; no lease expires because
 * of the outage; everything is fresh again by itself once the database returns. The node
 * has a PostgreSQL of its own, since this test stops it.
 */
class DatabaseOutageTest {

	static final Duration SOON = Duration.ofSeconds(10);

	static final String SERVICE = "outage";

	static final String QUIET = "outage-quiet";

	@TempDir
	static Path dataDirectory;

	static OutageNode outage;

	static Api api;

	@BeforeAll
	static void startDatabaseAndNode() throws IOException {
		outage = OutageNode.start(dataDirectory, "ballast.watch.keepalive=1s", "ballast.lease.sweep-interval=1s");
		api = Api.on(outage.node().port());
		// The gap an outage leaves is measured from the last sweep before it: on a fresh
		// database, there must have been one.
		Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
			try (Connection connection = outage.postgres().dataSource().getConnection();
					ResultSet rows = connection.createStatement().executeQuery("SELECT count(*) FROM lease_sweep")) {
				return rows.next() && rows.getInt(1) == 1;
			}
		});
	}

	@AfterAll
	static void stopNodeAndDatabase() throws IOException {
		if (outage != null) {
			outage.close();
		}
	}

	@Test
	void servesTheLastKnownStateWhileTheDatabaseIsDownAndRecoversByItself() throws Exception {
		String instances = "/v1/services/%s/instances".formatted(SERVICE);
		assertThat(api.put(instances + "/beating", Registration.at("h", 1).weight(10).leaseTtlSeconds(5)).status())
			.isEqualTo(201);
		assertThat(api.put(instances + "/silent", Registration.at("h", 2).weight(10).leaseTtlSeconds(10)).status())
			.isEqualTo(201);
		assertThat(api.put("/v1/services/%s/instances/q".formatted(QUIET), Registration.at("h", 3).weight(1)).status())
			.isEqualTo(201);

		// Fresh reads carry no stale marker, and leave the node their state.
		Api.Reply list = api.get(instances);
		long revision = list.json().get("revision").longValue();
		long quietRevision = api.get("/v1/services/%s/instances".formatted(QUIET)).json().get("revision").longValue();
		assertThat(list.header("X-Ballast-Stale")).isEmpty();
		assertThat(api.get("/v1/services").header("X-Ballast-Stale")).isEmpty();
		assertThat(api.get("/v1/services/" + SERVICE).header("X-Ballast-Stale")).isEmpty();
		Api.Reply silent = api.get(instances + "/silent");
		assertThat(silent.header("X-Ballast-Stale")).isEmpty();
		Instant silentExpiry = Instant.parse(silent.json().get("leaseExpiresAt").stringValue());

		try (EventStream stream = EventStream.open(outage.node().port(), "/v1/services/%s/watch".formatted(SERVICE),
				null)) {
			assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
			CompletableFuture<Api.Reply> parkedBefore = CompletableFuture
				.supplyAsync(() -> api.get(instances + "?index=" + revision + "&wait=8s"), runner());

			Instant stoppedAt = Instant.now();
			outage.postgres().stop();

			// A write before the node has noticed waits at most for a pooled connection.
			Api.Reply firstWrite = timed("write right after the database stopped",
					() -> api.put(instances + "/late", Registration.at("h", 4).weight(10)));
			assertUnavailable(firstWrite);

			EventStream.Event stale = stream.nextEvent(SOON);
			assertThat(stale.name()).isEqualTo("stale");
			assertThat(stale.json().get("stale").booleanValue()).isTrue();

			assertUnavailable(timed("write once the node knows",
					() -> api.put(instances + "/late", Registration.at("h", 4).weight(10))));
			assertUnavailable(
					timed("edit once the node knows", () -> api.patch(instances + "/beating", "{\"weight\":20}")));

			// Reads answer with the last known state, marked stale.
			Api.Reply staleList = api.get(instances);
			assertThat(staleList.status()).isEqualTo(200);
			assertThat(staleList.header("X-Ballast-Stale")).contains("true");
			assertThat(staleList.json()).isEqualTo(list.json());
			assertStale(api.get("/v1/services"));
			assertStale(api.get("/v1/services/" + SERVICE));
			Api.Reply staleSilent = api.get(instances + "/silent");
			assertStale(staleSilent);
			// The checks' verdicts are read when the answer is made: while the database
			// is
			// down they are absent (not known), the instance as it was.
			assertThat(staleSilent.json().has("checks")).isFalse();
			ObjectNode silentWithoutChecks = (ObjectNode) silent.json().deepCopy();
			silentWithoutChecks.remove("checks");
			assertThat(staleSilent.json()).isEqualTo(silentWithoutChecks);
			assertThat(api.get("/v1/services/never-read/instances").status()).isEqualTo(503);

			// A blocking query parked before the outage returns at its wait, stale.
			Api.Reply parked = parkedBefore.get(20, TimeUnit.SECONDS);
			assertStale(parked);
			assertThat(parked.header("X-Ballast-Index")).contains(Long.toString(revision));
			// One asked now waits on memory, here or (for a service nobody watches) on
			// its timeout.
			CompletableFuture<Api.Reply> parkedDuring = CompletableFuture
				.supplyAsync(() -> api.get(instances + "?index=" + revision + "&wait=25s"), runner());
			Api.Reply quiet = api.get("/v1/services/%s/instances?index=%d&wait=2s".formatted(QUIET, quietRevision));
			assertStale(quiet);

			// Heartbeats are absorbed past both leases' TTL; the stream keeps its
			// keepalives.
			MeterRegistry meters = outage.node().bean(MeterRegistry.class);
			Instant lastBeat = null;
			int keepalives = 0;
			// Past both TTLs, and until a keepalive came: on a loaded machine the steps
			// before this loop can use up the 13 s, which left it no turn to see one.
			while ((Duration.between(stoppedAt, Instant.now()).compareTo(Duration.ofSeconds(13)) < 0 || keepalives == 0)
					&& Duration.between(stoppedAt, Instant.now()).compareTo(Duration.ofSeconds(60)) < 0) {
				lastBeat = Instant.now();
				Api.Reply beat = api.send("POST", instances + "/beating/heartbeat", null, null);
				assertThat(beat.status()).isEqualTo(200);
				EventStream.Event next = stream.next(Duration.ofSeconds(3));
				assertThat(next.end()).as("the stream stays open").isFalse();
				keepalives += next.comment() ? 1 : 0;
			}
			assertThat(keepalives).isPositive();
			assertThat(meters.get("ballast.lease.pending").gauge().value()).isEqualTo(1.0);
			assertThat(parkedDuring).isNotDone();

			outage.postgres().start();
			Instant restartedAt = Instant.now();
			System.out.printf("Database down for %s%n", Duration.between(stoppedAt, restartedAt));

			Awaitility.await()
				.atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> api.get(instances).header("X-Ballast-Stale").isEmpty());
			EventStream.Event live = stream.nextEvent(SOON);
			assertThat(live.name()).isEqualTo("stale");
			assertThat(live.json().get("stale").booleanValue()).isFalse();

			Api.Reply write = api.put(instances + "/late", Registration.at("h", 4).weight(10));
			assertThat(write.status()).isEqualTo(201);
			EventStream.Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.json().get("id").stringValue()).isEqualTo("late");
			Api.Reply answered = parkedDuring.get(20, TimeUnit.SECONDS);
			assertThat(answered.status()).isEqualTo(200);
			assertThat(answered.header("X-Ballast-Stale")).isEmpty();
			assertThat(Long.parseLong(answered.header("X-Ballast-Index").orElseThrow())).isGreaterThan(revision);
			assertThat(api.get("/v1/services/" + SERVICE).header("X-Ballast-Stale")).isEmpty();

			// The absorbed heartbeats are written, and the first sweep extended the
			// silent lease by the outage instead of expiring it.
			Awaitility.await().atMost(SOON).until(() -> meters.get("ballast.lease.pending").gauge().value() == 0.0);
			assertThat(lastRenewed("beating")).isAfterOrEqualTo(lastBeat.minusMillis(100));
			Awaitility.await()
				.atMost(SOON)
				.pollInterval(Duration.ofMillis(100))
				.until(() -> Instant.parse(api.get(instances + "/silent").json().get("leaseExpiresAt").stringValue())
					.isAfter(silentExpiry.plusSeconds(5)));
			Api.Reply after = api.get(instances);
			after.json()
				.get("instances")
				.forEach(instance -> assertThat(instance.get("health").stringValue()).as(instance.toString())
					.isEqualTo("PASSING"));
			assertThat(after.json().get("instances")).hasSize(3);
		}
	}

	private static void assertUnavailable(Api.Reply reply) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(503);
		assertThat(reply.contentType()).hasValueSatisfying(type -> assertThat(type).contains("problem+json"));
		// A real outage, not a lock or statement timeout (DatabaseTimeoutTest).
		assertThat(reply.json().get("type").stringValue())
			.isEqualTo("https://ballast.dev/problems/database-unavailable");
		assertThat(reply.header("Retry-After"))
			.hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 3));
	}

	private static void assertStale(Api.Reply reply) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		assertThat(reply.header("X-Ballast-Stale")).contains("true");
	}

	private static Api.Reply timed(String what, java.util.function.Supplier<Api.Reply> request) {
		long started = System.nanoTime();
		Api.Reply reply = request.get();
		long millis = (System.nanoTime() - started) / 1_000_000;
		System.out.printf("%s: %d in %d ms%n", what, reply.status(), millis);
		// The issue asks for about 3 s: the pool's 2 s connection timeout plus slack for
		// a loaded machine.
		assertThat(millis).as(what).isLessThan(4_000);
		return reply;
	}

	private static Instant lastRenewed(String id) throws SQLException {
		try (Connection connection = DriverManager.getConnection(outage.postgres().jdbcUrl());
				PreparedStatement statement = connection
					.prepareStatement("SELECT last_renewed_at FROM instance WHERE service = ? AND id = ?")) {
			statement.setString(1, SERVICE);
			statement.setString(2, id);
			try (ResultSet rs = statement.executeQuery()) {
				assertThat(rs.next()).isTrue();
				return rs.getTimestamp(1).toInstant();
			}
		}
	}

	private static java.util.concurrent.Executor runner() {
		return command -> Thread.ofPlatform().daemon().name("outage-test-request").start(command);
	}

}
