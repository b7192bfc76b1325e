package dev.ballast.registry;

import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import javax.sql.DataSource;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import dev.ballast.weight.Weight;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.IllegalTransactionStateException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A group's writes keep their rows in memory and write them at commit
 * ({@link WriteBehind}): whatever the mix in one group (several services, a new service,
 * a refused write in the middle, a removal and a registration again of the same instance,
 * a registration that only renews), the revisions, change-log rows, instance rows and
 * audit events are those of the same writes made one at a time.
 */
@RegistryTest
class GroupedWritesTest {

	@LocalServerPort
	int port;

	@Autowired
	GroupCommit groups;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	ObjectMapper json;

	@Autowired
	WritePath path;

	@Autowired
	DataSource dataSource;

	@Test
	void aMixedGroupStoresWhatTheSameWritesOneAtATimeWould() throws Exception {
		String a = Names.service("behind-a");
		String b = Names.service("behind-b");
		Api api = Api.on(port);
		assertThat(api.put(path(b, "b1"), Registration.at("10.0.1.1", 8080).weight(100)).status()).isEqualTo(201);
		List<Future<Integer>> answers = new ArrayList<>();
		try (ExecutorService pool = Executors.newFixedThreadPool(12);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			int waiting = 0;
			answers.add(committer.queued(() -> put(api, b, "b1", 50), ++waiting));
			answers.add(committer.queued(() -> put(api, a, "a1", 10), ++waiting));
			answers.add(committer.queued(() -> put(api, a, "a2", 20), ++waiting));
			answers.add(committer.queued(() -> put(api, b, "b2", 100), ++waiting));
			// b1 at 0 is one instance out while nothing else is (the small-service rule);
			// b2 at 0 beside it would be two, and 150 of 150 unroutable.
			answers.add(committer.queued(() -> put(api, b, "b1", 0), ++waiting));
			answers.add(committer.queued(() -> put(api, b, "b2", 0), ++waiting));
			answers.add(committer.queued(() -> put(api, a, "a1", 11), ++waiting));
			answers.add(committer.queued(() -> api.delete(path(a, "a2")).status(), ++waiting));
			answers.add(committer.queued(() -> put(api, a, "a2", 21), ++waiting));
			// The same registration again: renews the lease, costs no revision.
			answers.add(committer.queued(() -> put(api, b, "b2", 100), ++waiting));
			answers.add(committer.queued(() -> put(api, a, "a3", 30), ++waiting));
			committer.release();
			List<Integer> statuses = new ArrayList<>();
			for (Future<Integer> answer : answers) {
				statuses.add(answer.get(30, TimeUnit.SECONDS));
			}
			assertThat(statuses).containsExactly(200, 201, 201, 201, 200, 409, 200, 204, 201, 200, 201);
		}

		assertThat(log(a)).containsExactly("1:UPSERT:a1:10", "2:UPSERT:a2:20", "3:UPSERT:a1:11", "4:REMOVE:a2:-",
				"5:UPSERT:a2:21", "6:UPSERT:a3:30");
		assertThat(log(b)).containsExactly("1:UPSERT:b1:100", "2:UPSERT:b1:50", "3:UPSERT:b2:100", "4:UPSERT:b1:0");
		assertThat(revision(a)).isEqualTo(6);
		assertThat(revision(b)).isEqualTo(4);
		assertThat(rows(a)).containsExactly("a1:11:3", "a2:21:5", "a3:30:6");
		assertThat(rows(b)).containsExactly("b1:0:4", "b2:100:3");
		// Everything but b1's first registration was committed by one transaction.
		assertThat(jdbc
			.sql("SELECT count(DISTINCT xmin::text) FROM change_log WHERE service IN (?, ?) AND NOT "
					+ "(service = ? AND revision = 1)")
			.params(a, b, b)
			.query(Long.class)
			.single()).isEqualTo(1);
		assertThat(audit(a)).containsExactly("instance.create:a1", "instance.create:a2", "instance.replace:a1",
				"instance.deregister:a2", "instance.create:a2", "instance.create:a3");
		assertThat(audit(b)).containsExactly("instance.create:b1", "instance.replace:b1", "instance.create:b2",
				"instance.replace:b1", "instance.replace:b2");
		// The change log carries what readers are answered.
		for (String id : List.of("a1", "a2", "a3")) {
			String payload = jdbc
				.sql("SELECT payload::text FROM change_log WHERE service = ? AND instance_id = ? "
						+ "ORDER BY revision DESC LIMIT 1")
				.params(a, id)
				.query(String.class)
				.single();
			// The instance resource adds the checks the registry runs, which no event
			// carries.
			ObjectNode answered = (ObjectNode) api.get(path(a, id)).json().deepCopy();
			answered.remove("checks");
			assertThat(json.readTree(payload)).isEqualTo(answered);
		}
	}

	/**
	 * An address longer than a host name: nothing in the JVM past the border refuses it,
	 * the table's CHECK does, when the group's rows are written at commit.
	 */
	@Test
	void aRowThatBreaksAConstraintAtCommitIsRefusedAloneAndItsGroupCommits() throws Exception {
		aBrokenWriteFailsAloneInItsGroup("behind-check", "h".repeat(254),
				service -> Audit.none("a test's write, refused for its address"),
				DataIntegrityViolationException.class);
	}

	/**
	 * Text PostgreSQL cannot store, past the border's rule ({@code StorableText}) as a
	 * write of some other door might carry it, in an audit entry: audit events are
	 * written in one batch just before commit whatever the group's way of writing its
	 * rows, so the database's refusal names no write. Only the write that appended it is
	 * refused.
	 */
	@Test
	void anUnstorableValueAtCommitIsRefusedAloneAndItsGroupCommits() throws Exception {
		aBrokenWriteFailsAloneInItsGroup("behind-nul", "10.0.0.9", service -> Audit
			.of(committed -> AuditEntry.of(Action.INSTANCE_CREATE, service, "bad", null, Map.of("k", "a\u0000b"))),
				org.springframework.dao.DataAccessException.class);
	}

	/**
	 * A write of instance {@code bad} at {@code badAddress}, audited by {@code audit}
	 * (given the service's name), queued between two clean registrations of one group:
	 * the database refuses it at commit, it alone fails with {@code refusal}, and the
	 * group commits the others.
	 */
	private void aBrokenWriteFailsAloneInItsGroup(String prefix, String badAddress, Function<String, Audit> audit,
			Class<? extends Throwable> refusal) throws Exception {
		String service = Names.service(prefix);
		Api api = Api.on(port);
		assertThat(api.put(path(service, "g1"), Registration.at("10.0.0.1", 8080).weight(10)).status()).isEqualTo(201);
		try (ExecutorService pool = Executors.newFixedThreadPool(4);
				HeldCommitter committer = new HeldCommitter(groups, pool)) {
			Future<Integer> before = committer.queued(() -> put(api, service, "g1", 11), 1);
			Future<Instance> broken = committer
				.queued(() -> groups.run(ServiceName.of(service), InstanceId.of("bad"), () -> {
					LockedService locked = path.lockOrCreate(ServiceName.of(service), InstanceId.of("bad"));
					Instance bad = new Instance(ServiceName.of(service), InstanceId.of("bad"), badAddress, Port.of(80),
							null, Weight.of(10), Weight.of(10), Weight.of(10), Mode.SERVING, null, Health.PASSING,
							false, null, new Metadata(Map.of()), new Tags(List.of()), LeaseTtl.ofSeconds(30),
							Instant.now(), 0);
					return locked.changes(Guard.none())
						.put(null, bad)
						.commit(audit.apply(service))
						.stored(InstanceId.of("bad"));
				}), 2);
			Future<Integer> after = committer.queued(() -> put(api, service, "g2", 20), 3);
			committer.release();
			assertThat(before.get(30, TimeUnit.SECONDS)).isEqualTo(200);
			assertThat(after.get(30, TimeUnit.SECONDS)).isEqualTo(201);
			assertThatThrownBy(() -> broken.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(refusal);
		}
		assertThat(log(service)).containsExactly("1:UPSERT:g1:10", "2:UPSERT:g1:11", "3:UPSERT:g2:20");
		assertThat(rows(service)).containsExactly("g1:11:2", "g2:20:3");
		assertThat(revision(service)).isEqualTo(3);
	}

	/**
	 * A lock lasts until its transaction ends: without one there is nothing to lock in.
	 */
	@Test
	void theWritePathLocksOnlyInATransaction() {
		String service = Names.service("behind-none");
		assertThat(
				Api.on(port).put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80)).status())
			.isEqualTo(201);

		assertThatThrownBy(() -> path.lock(ServiceName.of(service)))
			.isInstanceOf(IllegalTransactionStateException.class);
		assertThatThrownBy(() -> path.lockOrCreate(ServiceName.of(service), InstanceId.of("a")))
			.isInstanceOf(IllegalTransactionStateException.class);
		assertThat(path.grouped(ServiceName.of(service), InstanceId.of("a"),
				() -> path.lockOrCreate(ServiceName.of(service), InstanceId.of("a")).find(InstanceId.of("a"))))
			.as("the same lock in a group's transaction")
			.isPresent();
	}

	/**
	 * PostgreSQL plans a group's statements once per connection, and only in the group's
	 * transaction: the connection goes back to the pool planning as before.
	 */
	@Test
	void aGroupPlansItsStatementsOnceAndOnlyInItsTransaction() throws Exception {
		String service = Names.service("behind-plans");
		String[] inGroup = path.grouped(ServiceName.of(service), InstanceId.of("a"),
				() -> jdbc.sql("SELECT pg_backend_pid() || ' ' || current_setting('plan_cache_mode')")
					.query(String.class)
					.single()
					.split(" "));
		assertThat(inGroup[1]).isEqualTo("force_generic_plan");

		List<Connection> borrowed = new ArrayList<>();
		try {
			String after = null;
			// The pool's connections, until the group's comes back (20 at most).
			while (after == null && borrowed.size() < 20) {
				Connection connection = dataSource.getConnection();
				borrowed.add(connection);
				try (var statement = connection.createStatement();
						var rs = statement
							.executeQuery("SELECT pg_backend_pid(), current_setting('plan_cache_mode')")) {
					rs.next();
					if (rs.getString(1).equals(inGroup[0])) {
						after = rs.getString(2);
					}
				}
			}
			assertThat(after).as("the group's connection, back in the pool").isEqualTo("auto");
		}
		finally {
			for (Connection connection : borrowed) {
				connection.close();
			}
		}
	}

	@Test
	void textThatArrayLiteralsQuoteIsStoredAsSent() {
		String service = Names.service("behind-text");
		Api api = Api.on(port);
		String[] tags = { "q\"uote", "back\\slash", "{brace}", "com,ma", "NULL", "sp ace", "ünï" };
		Registration registration = Registration.at("10.0.0.1", 8080)
			.weight(7)
			.tags(tags)
			.metadata("k.ey", "v\"a\\l}", "null", "NULL");
		assertThat(api.put(path(service, "t1"), registration).status()).isEqualTo(201);
		JsonNode stored = api.get(path(service, "t1")).json();
		assertThat(stored.get("tags").valueStream().map(JsonNode::stringValue).toList()).containsExactly(tags);
		assertThat(stored.get("metadata").get("k.ey").stringValue()).isEqualTo("v\"a\\l}");
		assertThat(stored.get("metadata").get("null").stringValue()).isEqualTo("NULL");
		assertThat(jdbc.sql("SELECT tags FROM instance WHERE service = ?")
			.param(service)
			.query((rs, row) -> List.of((String[]) rs.getArray("tags").getArray()))
			.single()).containsExactly(tags);
	}

	private List<String> log(String service) {
		return jdbc
			.sql("SELECT revision || ':' || kind || ':' || instance_id || ':' || coalesce(payload ->> 'weight', '-') "
					+ "FROM change_log WHERE service = ? ORDER BY revision")
			.param(service)
			.query(String.class)
			.list();
	}

	private List<String> rows(String service) {
		return jdbc.sql("SELECT id || ':' || weight || ':' || revision FROM instance WHERE service = ? ORDER BY id")
			.param(service)
			.query(String.class)
			.list();
	}

	private List<String> audit(String service) {
		return jdbc.sql("SELECT action || ':' || instance FROM audit_event WHERE service = ? ORDER BY id")
			.param(service)
			.query(String.class)
			.list();
	}

	private long revision(String service) {
		return jdbc.sql("SELECT revision FROM service WHERE name = ?").param(service).query(Long.class).single();
	}

	private static int put(Api api, String service, String id, int weight) {
		return api.put(path(service, id), Registration.at("10.0.0.1", 8080).weight(weight)).status();
	}

	private static String path(String service, String id) {
		return "/v1/services/" + service + "/instances/" + id;
	}

}
