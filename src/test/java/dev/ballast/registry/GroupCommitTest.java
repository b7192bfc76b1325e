package dev.ballast.registry;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Registrations that arrive while the committer is busy are committed together, in one
 * transaction, in the order they arrived; each is guarded against the state its earlier
 * group-mates left, and one that is refused takes none of the others with it.
 */
@RegistryTest
class GroupCommitTest {

	@LocalServerPort
	int port;

	@Autowired
	GroupCommit groups;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	Checks checks;

	@Autowired
	TransactionTemplate transactions;

	@Test
	void writesQueuedMeanwhileCommitTogetherAndARefusedOneTakesNoneOfThemDown() throws Exception {
		String service = Names.service("group");
		Api api = Api.on(port);
		for (int i = 1; i <= 4; i++) {
			assertThat(api.put(path(service, i), Registration.at("10.0.0." + i, 8080).weight(100)).status())
				.isEqualTo(201);
		}
		long before = revision(service);
		try (ExecutorService pool = Executors.newFixedThreadPool(4);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			// One quarter of the capacity may be unroutable: the first weight 0 fits, the
			// second, counted after the first, does not; a weight raised takes nothing.
			Future<Integer> first = committer.queued(() -> weight(api, service, 1, 0), 1);
			Future<Integer> second = committer.queued(() -> weight(api, service, 2, 0), 2);
			Future<Integer> third = committer.queued(() -> weight(api, service, 3, 170), 3);
			committer.release();

			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(409);
			assertThat(third.get(30, TimeUnit.SECONDS)).isEqualTo(200);
		}
		assertThat(revision(service)).isEqualTo(before + 2);
		List<String> logged = jdbc
			.sql("SELECT instance_id || ':' || xmin::text FROM change_log WHERE service = ? AND revision > ? "
					+ "ORDER BY revision")
			.params(service, before)
			.query(String.class)
			.list();
		assertThat(logged).hasSize(2);
		assertThat(logged.get(0)).startsWith("i-1:");
		assertThat(logged.get(1)).startsWith("i-3:");
		// Both rows were written by one transaction.
		assertThat(logged.get(0).substring(4)).isEqualTo(logged.get(1).substring(4));
		assertThat(jdbc
			.sql("SELECT instance FROM audit_event WHERE service = ? AND action = 'instance.replace' " + "ORDER BY id")
			.param(service)
			.query(String.class)
			.list()).containsExactly("i-1", "i-3");
		assertThat(api.get(path(service, 2)).json().get("weight").intValue()).isEqualTo(100);
	}

	/**
	 * A group writes each instance's checks once, after its instance rows: an instance
	 * registered twice in one group keeps the checks of its last registration, and one
	 * registered and removed in the same group leaves none behind.
	 */
	@Test
	void aGroupKeepsTheChecksOfEachInstancesLastRegistrationAndNoneOfARemovedOne() throws Exception {
		String service = Names.service("group-checks");
		Api api = Api.on(port);
		// Probes fail (nothing listens on port 9), but the third failure, the first that
		// would change a check's row, is two minutes away.
		String tcp = check("tcp", "127.0.0.1:9");
		// A header value with what an array literal must quote: its rows travel as one.
		String http = check("http", "http://127.0.0.1:9/ready").replace("}",
				",\"headers\":{\"X-Probe\":[\"a \\\"b\\\", {c} \\\\ d\",\"NULL\"]}}");
		try (ExecutorService pool = Executors.newFixedThreadPool(5);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			Future<Integer> first = committer.queued(() -> withChecks(api, service, 1, tcp), 1);
			Future<Integer> again = committer.queued(() -> withChecks(api, service, 1, http + "," + tcp), 2);
			Future<Integer> other = committer.queued(() -> withChecks(api, service, 2, tcp), 3);
			Future<Integer> removed = committer.queued(() -> api.delete(path(service, 2)).status(), 4);
			committer.release();

			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(201);
			assertThat(again.get(30, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(other.get(30, TimeUnit.SECONDS)).isEqualTo(201);
			assertThat(removed.get(30, TimeUnit.SECONDS)).isEqualTo(204);
		}
		assertThat(jdbc
			.sql("SELECT instance_id || ' ' || position || ' ' || kind || ' ' || target FROM health_check "
					+ "WHERE service = ? ORDER BY instance_id, position")
			.param(service)
			.query(String.class)
			.list()).containsExactly("i-1 0 HTTP http://127.0.0.1:9/ready", "i-1 1 TCP 127.0.0.1:9");
		assertThat(checks.of(ServiceName.of(service), InstanceId.of("i-1")).getFirst().definition().headers())
			.isEqualTo(Map.of("X-Probe", List.of("a \"b\", {c} \\ d", "NULL")));
		// Written by the transaction that logged the group's changes.
		assertThat(jdbc.sql("""
				SELECT count(DISTINCT xmin::text) FROM (
				    SELECT xmin FROM health_check WHERE service = ?
				    UNION ALL SELECT xmin FROM change_log WHERE service = ?) AS written""")
			.params(service, service)
			.query(Long.class)
			.single()).isEqualTo(1);
	}

	private static String check(String kind, String target) {
		return "{\"%s\":\"%s\",\"intervalSeconds\":60,\"failuresBeforeCritical\":3}".formatted(kind, target);
	}

	private static int withChecks(Api api, String service, int instance, String checks) {
		return api
			.put(path(service, instance),
					"{\"address\":\"127.0.0.1\",\"port\":9,\"weight\":100,\"checks\":[%s]}".formatted(checks))
			.status();
	}

	/**
	 * A group locks its services in name order; another transaction that holds the second
	 * and then asks for the first deadlocks with it, and PostgreSQL rolls the group back
	 * (the other transaction waits ten times longer before it looks for a deadlock, so
	 * the group is the one ended). Nothing of the group was stored, so it runs again once
	 * the other has committed, and its callers are answered as if nothing happened. The
	 * registrations take the full way (an Accept the short way leaves to Spring MVC),
	 * where a refusal is answered at once, so a group that gave up shows.
	 */
	@Test
	void aGroupRolledBackForADeadlockRunsAgainAndItsCallersNeverSeeIt() throws Exception {
		String first = Names.service("deadlock");
		String second = first + "-z";
		Api api = Api.on(port);
		assertThat(weight(api, first, 1, 100)).isEqualTo(201);
		assertThat(weight(api, second, 1, 100)).isEqualTo(201);
		long deadlocksBefore = deadlocks();
		try (ExecutorService pool = Executors.newFixedThreadPool(5);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			Future<Api.Reply> registerFirst = committer.queued(() -> fullWay(api, first, 50), 1);
			Future<Api.Reply> registerSecond = committer.queued(() -> fullWay(api, second, 60), 2);
			CountDownLatch holdsSecond = new CountDownLatch(1);
			Future<?> other = pool.submit(() -> transactions.executeWithoutResult(status -> {
				jdbc.sql("SET LOCAL deadlock_timeout = '10s'").update();
				lockService(second);
				holdsSecond.countDown();
				// Once the group waits for the second service, ask for the first, which
				// the group holds: well within the group's deadlock_timeout (1 s), so
				// that its one look for a deadlock finds it. Polled on this transaction's
				// own connection.
				await().atMost(Duration.ofSeconds(20))
					.pollInSameThread()
					.pollInterval(Duration.ofMillis(10))
					.until(() -> jdbc
						.sql("SELECT count(*) FROM pg_stat_activity WHERE pg_backend_pid() = ANY("
								+ "pg_blocking_pids(pid))")
						.query(Long.class)
						.single() > 0);
				lockService(first);
			}));
			assertThat(holdsSecond.await(10, TimeUnit.SECONDS)).as("the other transaction holds the second service")
				.isTrue();
			committer.release();

			Api.Reply firstReply = registerFirst.get(30, TimeUnit.SECONDS);
			Api.Reply secondReply = registerSecond.get(30, TimeUnit.SECONDS);
			assertThat(firstReply.status()).as(firstReply.body()).isEqualTo(200);
			assertThat(secondReply.status()).as(secondReply.body()).isEqualTo(200);
			other.get(30, TimeUnit.SECONDS);
		}
		assertThat(api.get(path(first, 1)).json().get("weight").intValue()).isEqualTo(50);
		assertThat(api.get(path(second, 1)).json().get("weight").intValue()).isEqualTo(60);
		// PostgreSQL counts the deadlock once its backend reports its statistics.
		await().atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(200))
			.untilAsserted(
					() -> assertThat(deadlocks()).as("deadlocks PostgreSQL found").isGreaterThan(deadlocksBefore));
	}

	/**
	 * Running again is bounded: a write that deadlocks at every attempt is refused with
	 * the deadlock after {@link GroupCommit#CONFLICT_ATTEMPTS} runs, and a write refused
	 * for anything else runs once.
	 */
	@Test
	void aWriteThatKeepsDeadlockingRunsThreeTimesAndAnyOtherFailureOnce() {
		assertThat(runsOfAWriteThatKeepsFailing(new PessimisticLockingFailureException("UPDATE service",
				new SQLException("deadlock detected", "40P01"))))
			.isEqualTo(3);
		assertThat(runsOfAWriteThatKeepsFailing(new CannotAcquireLockException("SELECT",
				new SQLException("canceling statement due to lock timeout", "55P03"))))
			.isEqualTo(1);
	}

	/** How often a write that fails with {@code failure} ran before its caller got it. */
	private int runsOfAWriteThatKeepsFailing(RuntimeException failure) {
		AtomicInteger runs = new AtomicInteger();
		assertThatThrownBy(() -> groups.run(ServiceName.of(Names.service("failing")), null, () -> {
			runs.incrementAndGet();
			throw failure;
		})).isSameAs(failure);
		return runs.get();
	}

	@Test
	void aLoneWriteIsCommittedWithoutWaitingForCompany() {
		String service = Names.service("alone");
		long began = System.nanoTime();
		Object txid = groups.run(ServiceName.of(service), null,
				() -> jdbc.sql("SELECT txid_current()").query(Long.class).single());
		assertThat(txid).isInstanceOf(Long.class);
		assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
		assertThat(groups.waiting()).isZero();
	}

	private static int weight(Api api, String service, int instance, int weight) {
		return api.put(path(service, instance), Registration.at("10.0.0." + instance, 8080).weight(weight)).status();
	}

	private static String path(String service, int instance) {
		return "/v1/services/" + service + "/instances/i-" + instance;
	}

	private static Api.Reply fullWay(Api api, String service, int weight) {
		return api.sendWith("PUT", path(service, 1), Registration.at("10.0.0.1", 8080).weight(weight).json(),
				Map.of("Accept", "application/json;q=0.9"));
	}

	private void lockService(String service) {
		jdbc.sql("SELECT name FROM service WHERE name = ? FOR UPDATE").param(service).query(String.class).single();
	}

	private long deadlocks() {
		return jdbc.sql("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
			.query(Long.class)
			.single();
	}

	private long revision(String service) {
		return jdbc.sql("SELECT revision FROM service WHERE name = ?").param(service).query(Long.class).single();
	}

}
