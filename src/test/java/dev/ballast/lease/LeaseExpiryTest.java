package dev.ballast.lease;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.registry.Leases;
import dev.ballast.support.Api;
import dev.ballast.support.MutableClock;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Heartbeats, expiry, revival, removal, the ejection cap and outage extension, driven by
 * an injected clock. The timers are off in this context: each test flushes and sweeps
 * exactly when it means to, as {@code LeaseSchedule} would.
 */
@RegistryTest
@TestPropertySource(properties = { "ballast.lease.scheduled=false", "ballast.lease.pause-tolerance=1h",
		"ballast.watch.scheduled=false", "ballast.release.scheduled=false", "ballast.audit.scheduled=false" })
class LeaseExpiryTest {

	static final MutableClock CLOCK = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

	/** Judging lags the clock by two flush intervals (1 s each). */
	static final Duration ALLOWANCE = Duration.ofSeconds(2);

	@TestConfiguration
	static class Time {

		@Bean
		@Primary
		MutableClock testClock() {
			return CLOCK;
		}

	}

	@LocalServerPort
	int port;

	@Autowired
	Heartbeats heartbeats;

	@Autowired
	LeaseSweeper sweeper;

	@Autowired
	Leases leases;

	@Autowired
	Vigil vigil;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	TransactionTemplate transactions;

	Api api;

	String service;

	Instant registeredAt;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("lease");
		// Leave room after other tests' sweeps, so this test's gaps stay below the
		// tolerance.
		registeredAt = CLOCK.advance(Duration.ofMinutes(10));
	}

	private String path(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	private void register(String id, int weight) {
		assertThat(api.put(path(id), Registration.at("10.0.0.1", 80).weight(weight)).status()).isEqualTo(201);
	}

	private Api.Reply beat(String id) {
		return api.send("POST", path(id) + "/heartbeat", null, null);
	}

	private LeaseSweeper.Sweep tickAt(Instant now) {
		CLOCK.set(now);
		heartbeats.flush();
		return sweeper.sweep();
	}

	private JsonNode instance(String id) {
		return api.get(path(id)).json();
	}

	@Test
	void heartbeatAnswersModeEffectiveWeightAndTheNewExpiry() {
		register("a", 70);
		CLOCK.advance(Duration.ofSeconds(7));

		Api.Reply reply = beat("a");

		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.json().get("mode").asString()).isEqualTo("SERVING");
		assertThat(reply.json().get("effectiveWeight").intValue()).isEqualTo(70);
		assertThat(Instant.parse(reply.json().get("leaseExpiresAt").asString()))
			.isEqualTo(registeredAt.plusSeconds(37));
	}

	@Test
	void heartbeatForAnUnknownInstanceIs404SoTheClientRegistersAgain() {
		register("a", 1);

		assertThat(beat("nope").status()).isEqualTo(404);
		assertThat(
				api.send("POST", "/v1/services/%s/instances/a/heartbeat".formatted(Names.service("none")), null, null)
					.status())
			.isEqualTo(404);
	}

	@Test
	void heartbeatsReachTheDatabaseInOneFlushWithoutSpendingRevisions() {
		register("a", 1);
		register("b", 1);
		Instant beatAt = CLOCK.advance(Duration.ofSeconds(5));
		beat("a");
		beat("b");

		assertThat(lastRenewed("a")).isEqualTo(registeredAt);
		heartbeats.flush();

		assertThat(lastRenewed("a")).isEqualTo(beatAt);
		assertThat(lastRenewed("b")).isEqualTo(beatAt);
		assertThat(api.get("/v1/services/" + service).json().get("revision").longValue()).isEqualTo(2);
	}

	@Test
	void aLeaseExpiresExactlyTtlAfterItsLastRenewalAsJudgedAfterTheFlushAllowance() {
		register("a", 100);
		register("b", 100);
		Instant expiresAt = registeredAt.plusSeconds(30);
		keepAlive("b", expiresAt.plusSeconds(5));

		tickAt(expiresAt.plus(ALLOWANCE).minusMillis(1));
		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
		tickAt(expiresAt.plus(ALLOWANCE));
		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
		tickAt(expiresAt.plus(ALLOWANCE).plusMillis(1));

		JsonNode a = instance("a");
		assertThat(a.get("health").asString()).isEqualTo("CRITICAL");
		assertThat(a.get("effectiveWeight").intValue()).isZero();
		assertThat(a.get("routable").booleanValue()).isFalse();
		assertThat(a.get("weight").intValue()).isEqualTo(100);
		assertThat(instance("b").get("health").asString()).isEqualTo("PASSING");
		assertThat(lastChange()).isEqualTo("UPSERT:a:CRITICAL:0");
	}

	@Test
	void aRenewalBringsAnExpiredInstanceBackWithItsWeight() {
		register("a", 100);
		register("b", 100);
		keepAlive("b", registeredAt.plusSeconds(40));
		tickAt(registeredAt.plusSeconds(33));
		assertThat(instance("a").get("routable").booleanValue()).isFalse();

		Api.Reply reply = beat("a");

		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.json().get("effectiveWeight").intValue()).isEqualTo(100);
		JsonNode a = instance("a");
		assertThat(a.get("health").asString()).isEqualTo("PASSING");
		assertThat(a.get("effectiveWeight").intValue()).isEqualTo(100);
		assertThat(lastChange()).isEqualTo("UPSERT:a:PASSING:100");
	}

	@Test
	void anEjectedInstanceIsRemovedThreeTtlsAfterItsLeaseRanOut() {
		register("a", 100);
		register("b", 100);
		Instant expiresAt = registeredAt.plusSeconds(30);
		Instant removeAt = expiresAt.plus(ALLOWANCE).plusSeconds(90);
		keepAlive("b", removeAt.plusSeconds(5));
		tickAt(expiresAt.plus(ALLOWANCE).plusMillis(1));

		tickAt(removeAt);
		assertThat(api.get(path("a")).status()).isEqualTo(200);
		tickAt(removeAt.plusMillis(1));

		assertThat(api.get(path("a")).status()).isEqualTo(404);
		assertThat(api.get(path("b")).status()).isEqualTo(200);
		assertThat(lastChange()).isEqualTo("REMOVE:a:-:-");
		JsonNode audited = api.get("/v1/audit?service=%s&instance=a".formatted(service)).json().get("events");
		assertThat(audited.valueStream().map(event -> event.get("action").asString()))
			.containsExactly("instance.remove", "instance.expire", "instance.create");
		assertThat(audited.get(0).get("tokenId").asString()).isEqualTo("system");
		assertThat(audited.get(1).get("details").get("ejected").asBoolean()).isTrue();
		assertThat(audited.get(1).get("after").get("health").asString()).isEqualTo("CRITICAL");
	}

	@Test
	void theEjectionCapLeavesAtMostTwentyPercentUnroutableAndHoldsTheRest() {
		for (int i = 0; i < 10; i++) {
			register("i" + i, 100);
		}
		Instant end = registeredAt.plusSeconds(40);
		for (Instant t = registeredAt.plusSeconds(10); !t.isAfter(end); t = t.plusSeconds(10)) {
			CLOCK.set(t);
			for (int i = 5; i < 10; i++) {
				beat("i" + i);
			}
			tickAt(t);
		}

		JsonNode list = api.get(path("").replaceAll("/$", "")).json().get("instances");
		long unroutable = list.valueStream().filter(i -> !i.get("routable").booleanValue()).count();
		long critical = list.valueStream().filter(i -> i.get("health").asString().equals("CRITICAL")).count();
		JsonNode ejection = api.get("/v1/services/" + service).json().get("ejection");
		assertThat(unroutable).isEqualTo(2);
		assertThat(critical).isEqualTo(5);
		assertThat(ejection.get("ejected").intValue()).isEqualTo(2);
		assertThat(ejection.get("held").intValue()).isEqualTo(3);
		assertThat(ejection.get("allowanceWeight").intValue()).isEqualTo(200);
		assertThat(ejection.get("remainingWeight").intValue()).isZero();
		JsonNode summary = api.get("/v1/services")
			.json()
			.valueStream()
			.filter(s -> s.get("name").asString().equals(service))
			.findFirst()
			.orElseThrow();
		assertThat(summary.get("critical").intValue()).isEqualTo(5);
		assertThat(summary.get("held").intValue()).isEqualTo(3);
		assertThat(summary.get("ejected").intValue()).isEqualTo(2);
		assertThat(summary.get("routable").intValue()).isEqualTo(8);
		assertThat(Api.unchecked(port).get("/actuator/prometheus").body())
			.contains("ballast_lease_held{service=\"%s\"} 3.0".formatted(service));
	}

	@Test
	void theLastRoutableInstanceIsNeverEjectedByExpiryAlone() {
		register("only", 100);

		tickAt(registeredAt.plusSeconds(60));

		JsonNode only = instance("only");
		assertThat(only.get("health").asString()).isEqualTo("CRITICAL");
		assertThat(only.get("routable").booleanValue()).isTrue();
		assertThat(only.get("effectiveWeight").intValue()).isEqualTo(100);
	}

	@Test
	void leasesAreExtendedByTheTimeTheRegistryWasNotWatchingBeforeAnythingExpires() {
		register("a", 100);
		register("b", 100);
		tickAt(registeredAt.plusSeconds(1));

		LeaseSweeper.Sweep afterOutage = tickAt(registeredAt.plus(Duration.ofHours(2)));

		assertThat(afterOutage.extendedBy()).isGreaterThan(Duration.ofMinutes(119));
		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
		assertThat(instance("b").get("health").asString()).isEqualTo("PASSING");
		Instant extendedExpiry = Instant.parse(instance("a").get("leaseExpiresAt").asString());
		tickAt(extendedExpiry.plus(ALLOWANCE).plusMillis(1));
		assertThat(instance("a").get("health").asString()).isEqualTo("CRITICAL");
	}

	/**
	 * Sweeps held up for 90 minutes while this node was awake and reached its database
	 * all along, as a sweep slowed by load is: the vigil saw every step of the clock,
	 * none longer than the tolerance (1 h here), so nothing was unwatched and the late
	 * sweep judges leases as they are.
	 */
	@Test
	void aLateSweepOfANodeThatKeptWatchingExtendsNoLease() {
		register("a", 100);
		tickAt(registeredAt.plusSeconds(1));
		stepClockWatched(registeredAt.plus(Duration.ofMinutes(90)));

		LeaseSweeper.Sweep late = tickAt(registeredAt.plus(Duration.ofMinutes(90)));

		assertThat(late.extendedBy()).isZero();
		assertThat(instance("a").get("health").asString()).isEqualTo("CRITICAL");
	}

	/**
	 * The same late sweep, but the tick before it is another node's: this node cannot
	 * vouch for the time in between, so the gap counts as an outage.
	 */
	@Test
	void aGapAfterAnotherNodesTickIsAnOutageThoughThisNodeWasAwake() {
		register("a", 100);
		tickAt(registeredAt.plusSeconds(1));
		jdbc.sql("UPDATE lease_sweep SET last_tick = last_tick + interval '1 millisecond'").update();
		stepClockWatched(registeredAt.plus(Duration.ofMinutes(90)));

		LeaseSweeper.Sweep late = tickAt(registeredAt.plus(Duration.ofMinutes(90)));

		assertThat(late.extendedBy()).isGreaterThan(Duration.ofMinutes(89));
		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
	}

	/**
	 * An extension runs in batches: every PASSING lease beyond the first batch moves by
	 * exactly the outage, and a CRITICAL one does not move.
	 */
	@Test
	void anExtensionReachesEveryPassingLeaseBeyondOneBatch() {
		int passing = Leases.EXTENSION_BATCH * 2 + 1;
		Instant renewedAt = CLOCK.instant().truncatedTo(ChronoUnit.SECONDS);
		jdbc.sql("INSERT INTO service (name) VALUES (?)").param(service).update();
		jdbc.sql("""
				INSERT INTO instance (service, id, address, port, weight, effective_weight, nominal_weight,
				                      lease_ttl_seconds, last_renewed_at, registered_at, revision, health,
				                      critical_reason)
				SELECT ?, 'i' || n, '10.0.0.1', 80, 100, 100, 100, 30, ?, ?, 1,
				       CASE WHEN n < ? THEN 'PASSING' ELSE 'CRITICAL' END,
				       CASE WHEN n < ? THEN NULL ELSE 'reported-critical' END
				  FROM generate_series(0, ?) AS n""")
			.params(service, Timestamp.from(renewedAt), Timestamp.from(renewedAt), passing, passing, passing)
			.update();
		try {
			Integer extended = transactions.execute(status -> leases.extendLeases(Duration.ofMinutes(7)));

			assertThat(extended).isGreaterThanOrEqualTo(passing);
			assertThat(countRenewedAt(renewedAt.plus(Duration.ofMinutes(7)))).as("passing leases extended")
				.isEqualTo(passing);
			assertThat(countRenewedAt(renewedAt)).as("critical leases left alone").isEqualTo(1);
		}
		finally {
			jdbc.sql("DELETE FROM service WHERE name = ?").param(service).update();
		}
	}

	private long countRenewedAt(Instant at) {
		return jdbc.sql("SELECT count(*) FROM instance WHERE service = ? AND last_renewed_at = ?")
			.params(service, Timestamp.from(at))
			.query(Long.class)
			.single();
	}

	/**
	 * Moves the clock to {@code until} in ten-minute steps, each seen by the vigil before
	 * the next: time that passed while this node was awake.
	 */
	private void stepClockWatched(Instant until) {
		for (Instant step = CLOCK.instant(); step.isBefore(until);) {
			step = step.plus(Duration.ofMinutes(10));
			Instant next = step.isAfter(until) ? until : step;
			CLOCK.set(next);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> vigil.awakeAt().equals(next));
		}
	}

	/**
	 * The sweep extended leases (locking instance rows) in the transaction in which it
	 * then waits for a service row, while a writer holding that service row waits for an
	 * instance row: PostgreSQL ended one of them with "deadlock detected".
	 */
	@Test
	void anOutageExtensionNeverDeadlocksAWriterHoldingTheService() throws Exception {
		register("a", 100);
		register("b", 100);
		// Both expire: the next sweep has CRITICAL instances to look at, so it locks the
		// service.
		tickAt(registeredAt.plusSeconds(60));
		register("c", 100);
		CountDownLatch serviceHeld = new CountDownLatch(1);
		// Threads of their own: the common pool may have a single thread, and the writer
		// waits there until the sweep waits for it.
		ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
		CompletableFuture<Integer> writer = CompletableFuture.supplyAsync(() -> transactions.execute(status -> {
			jdbc.sql("SELECT name FROM service WHERE name = ? FOR UPDATE").param(service).query().singleRow();
			serviceHeld.countDown();
			org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> waitingOnLocks() > 0);
			return jdbc.sql("UPDATE instance SET zone = 'az-2' WHERE service = ? AND id = 'c'").param(service).update();
		}), threads);
		assertThat(serviceHeld.await(10, TimeUnit.SECONDS)).isTrue();

		CompletableFuture<LeaseSweeper.Sweep> sweep = CompletableFuture
			.supplyAsync(() -> tickAt(registeredAt.plus(Duration.ofHours(2))), threads);

		assertThat(writer.get(30, TimeUnit.SECONDS)).as("rows the writer updated").isEqualTo(1);
		assertThat(sweep.get(30, TimeUnit.SECONDS).extendedBy()).isGreaterThan(Duration.ofMinutes(100));
		assertThat(instance("c").get("health").asString()).isEqualTo("PASSING");
	}

	private int waitingOnLocks() {
		return jdbc.sql(
				"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
			.query(Integer.class)
			.single();
	}

	@Test
	void aRenewalStillInANodesBufferCannotCauseAnExpiry() {
		register("a", 100);
		register("b", 100);
		Instant expiresAt = registeredAt.plusSeconds(30);
		keepAlive("b", expiresAt.plusSeconds(10));
		// "a" renews just after its lease ran out, on a node that has not flushed yet.
		CLOCK.set(expiresAt.plusMillis(500));
		beat("a");

		CLOCK.set(expiresAt.plus(ALLOWANCE).minusMillis(500));
		sweeper.sweep();
		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
		heartbeats.flush();
		tickAt(expiresAt.plus(ALLOWANCE).plusMillis(1));

		assertThat(instance("a").get("health").asString()).isEqualTo("PASSING");
	}

	/**
	 * A node cut off from the database while its clients still reach it answers
	 * heartbeats that no other node sees: leases are judged no later than the moment
	 * through which it last wrote its renewals, until the silent-node grace (30 s) has
	 * passed since then, when it counts as gone.
	 */
	@Test
	void aSilentNodeHoldsBackExpiriesUntilItsGraceRunsOut() {
		register("a", 100);
		register("b", 100);
		Instant expiresAt = registeredAt.plusSeconds(30);
		keepAlive("b", expiresAt.plusSeconds(40));
		Instant silentSince = registeredAt.plusSeconds(10);
		jdbc.sql("INSERT INTO node (node, renewals_through) VALUES (?, ?)")
			.params("silent " + service, Timestamp.from(silentSince))
			.update();

		tickAt(expiresAt.plus(ALLOWANCE).plusMillis(1));
		String whileSilent = instance("a").get("health").asString();
		tickAt(silentSince.plusSeconds(30).minusMillis(1));
		String atTheGrace = instance("a").get("health").asString();
		tickAt(silentSince.plusSeconds(30).plusMillis(1));

		assertThat(whileSilent).as("a lease that ran out after the silent node's last write").isEqualTo("PASSING");
		assertThat(atTheGrace).isEqualTo("PASSING");
		assertThat(instance("a").get("health").asString()).as("once the silent node counts as gone")
			.isEqualTo("CRITICAL");
		assertThat(instance("b").get("health").asString()).isEqualTo("PASSING");
	}

	@Test
	void aSecondNodeDoesNotSweepWhileAnotherHoldsTheSweep() throws Exception {
		register("a", 100);
		register("b", 100);
		keepAlive("b", registeredAt.plusSeconds(40));
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread otherNode = Thread.ofVirtual().start(() -> transactions.executeWithoutResult(status -> {
			assertThat(AdvisoryLock.LEASE_SWEEP.tryTake(jdbc)).isTrue();
			held.countDown();
			await(release);
		}));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

		LeaseSweeper.Sweep whileHeld = tickAt(registeredAt.plusSeconds(40));
		String healthWhileHeld = instance("a").get("health").asString();
		release.countDown();
		otherNode.join(10_000);
		LeaseSweeper.Sweep afterwards = tickAt(registeredAt.plusSeconds(40).plusMillis(1));

		assertThat(whileHeld.leader()).isFalse();
		assertThat(healthWhileHeld).isEqualTo("PASSING");
		assertThat(afterwards.leader()).isTrue();
		assertThat(instance("a").get("health").asString()).isEqualTo("CRITICAL");
	}

	private void keepAlive(String id, Instant until) {
		for (Instant t = registeredAt.plusSeconds(10); !t.isAfter(until); t = t.plusSeconds(10)) {
			CLOCK.set(t);
			assertThat(beat(id).status()).isEqualTo(200);
		}
		heartbeats.flush();
	}

	private Instant lastRenewed(String id) {
		return jdbc.sql("SELECT last_renewed_at FROM instance WHERE service = ? AND id = ?")
			.params(service, id)
			.query((rs, row) -> rs.getTimestamp(1).toInstant())
			.single();
	}

	private String lastChange() {
		return jdbc.sql("""
				SELECT kind || ':' || instance_id || ':' || coalesce(payload ->> 'health', '-') || ':'
				       || coalesce(payload ->> 'effectiveWeight', '-')
				  FROM change_log WHERE service = ? ORDER BY revision DESC LIMIT 1""")
			.param(service)
			.query(String.class)
			.single();
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
