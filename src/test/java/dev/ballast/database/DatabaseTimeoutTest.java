package dev.ballast.database;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import dev.ballast.support.RowHolder;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A write that PostgreSQL cuts short at the session's own limits is a 503 with its own
 * problem type and a Retry-After, never "database unavailable" (the database is up), a
 * 500 or a hang, and it writes nothing. The node runs with the shipped settings
 * ({@code lock_timeout} 3 s, {@code statement_timeout} 5 s); a second connection holds
 * the service's row.
 */
@RegistryTest
class DatabaseTimeoutTest {

	private static final String TIMED_OUT = "https://ballast.dev/problems/database-timeout";

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	TransactionTemplate transactions;

	@Test
	void aWriteBlockedPastTheLockTimeoutIsADatabaseTimeoutThatWritesNothing() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("busy");
		String path = "/v1/services/%s/instances/a".formatted(service);
		api.put(path, Registration.at("h", 1).weight(1));
		List<String> before = rows(service);

		Api.Reply reply;
		long tookMillis;
		try (RowHolder holder = RowHolder.hold(transactions, jdbc, service)) {
			long started = System.nanoTime();
			reply = api.put(path, Registration.at("h", 1).weight(2));
			tookMillis = (System.nanoTime() - started) / 1_000_000;
			System.out.printf("registration held past the lock timeout: answered in %d ms%n", tookMillis);
		}

		assertTimedOut(reply, "lock_timeout");
		// The lock_timeout (3 s), once: a registration refused on its short way for a
		// timeout is answered there, not waited for again on the full way.
		assertThat(tookMillis).as("bounded by lock_timeout (3 s)").isBetween(2_500L, 5_000L);
		assertThat(rows(service)).isEqualTo(before);
		assertThat(api.get(path).json().get("weight").intValue()).isEqualTo(1);
	}

	/**
	 * PostgreSQL ends a statement at {@code statement_timeout} by cancelling it, with
	 * SQLSTATE 57014; cancelling the blocked write's statement from outside raises the
	 * same, without waiting for the 5 s limit (and before the 3 s lock timeout). An
	 * operator's edit, which takes the full way through Spring MVC.
	 */
	@Test
	void aStatementCancelledByTheDatabaseIsADatabaseTimeoutThatWritesNothing() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("slow");
		String path = "/v1/services/%s/instances/a".formatted(service);
		api.put(path, Registration.at("h", 1).weight(1));
		List<String> before = rows(service);

		Api.Reply reply;
		try (RowHolder holder = RowHolder.hold(transactions, jdbc, service)) {
			CompletableFuture<Api.Reply> write = CompletableFuture.supplyAsync(() -> api.patch(path, "{\"weight\":2}"));
			int blocked = await().atMost(Duration.ofMillis(2_500))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> holder.blockedBackends(jdbc), pids -> !pids.isEmpty())
				.getFirst();
			assertThat(jdbc.sql("SELECT pg_cancel_backend(?)").param(blocked).query(Boolean.class).single()).isTrue();
			reply = write.get(10, TimeUnit.SECONDS);
		}

		assertTimedOut(reply, "statement_timeout");
		assertThat(rows(service)).isEqualTo(before);
		assertThat(api.get(path).json().get("weight").intValue()).isEqualTo(1);
	}

	private static void assertTimedOut(Api.Reply reply, String limit) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(503);
		assertThat(reply.contentType()).hasValueSatisfying(type -> assertThat(type).contains("problem+json"));
		assertThat(reply.json().get("type").stringValue()).isEqualTo(TIMED_OUT);
		assertThat(reply.json().get("detail").stringValue()).contains(limit)
			.contains("the database is up")
			.contains("nothing was written")
			.doesNotContain("unavailable");
		assertThat(reply.json().get("title").stringValue()).doesNotContainIgnoringCase("unavailable");
		assertThat(reply.header("Retry-After"))
			.hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 3));
	}

	/** The service's rows in every table a registration writes. */
	private List<String> rows(String service) {
		return List.of("service", "instance", "change_log", "audit_event")
			.stream()
			.map(table -> table + ": "
					+ jdbc
						.sql("SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text)::text, '') FROM "
								+ table + " t WHERE " + (table.equals("service") ? "name" : "service") + " = ?")
						.param(service)
						.query(String.class)
						.single())
			.toList();
	}

}
