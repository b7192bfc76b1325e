package dev.ballast.registry;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.weight.Weight;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lease columns of the {@code instance} table, for the lease module's heartbeats and
 * sweep. Renewals and the extension after an outage change nothing clients watch, so they
 * are written here without a revision; every other state change goes through the write
 * path ({@link WritePath}).
 */
@Repository
public class Leases {

	/** Rows per statement of a lease extension, well within the statement timeout. */
	public static final int EXTENSION_BATCH = 5_000;

	private final JdbcClient jdbc;

	private final JdbcTemplate template;

	Leases(JdbcClient jdbc, JdbcTemplate template) {
		this.jdbc = jdbc;
		this.template = template;
	}

	/**
	 * The lease state a heartbeat answers with, or empty when the instance is not
	 * registered.
	 */
	public Optional<LeaseStatus> status(InstanceKey key) {
		return jdbc.sql("""
				SELECT mode, effective_weight, lease_ttl_seconds, health FROM instance WHERE service = ? AND id = ?""")
			.params(key.service(), key.id())
			.query((rs, row) -> new LeaseStatus(Mode.valueOf(rs.getString(1)), Weight.of(rs.getInt(2)),
					LeaseTtl.ofSeconds(rs.getInt(3)), Health.valueOf(rs.getString(4))))
			.optional();
	}

	/**
	 * Writes a batch of renewals in one statement. A renewal never moves a lease
	 * backwards, so batches from several nodes may land in any order. The rows are locked
	 * in key order first, as the lease extension and the expiry sweep lock them: left to
	 * the join, the order follows the batch or the plan, and two writers over overlapping
	 * rows (two nodes' flushes, a flush and a sweep) can deadlock.
	 * @return the state of each renewed instance that still exists
	 */
	public Map<InstanceKey, LeaseStatus> renew(Map<InstanceKey, Instant> renewals) {
		String[] services = new String[renewals.size()];
		String[] ids = new String[renewals.size()];
		Timestamp[] times = new Timestamp[renewals.size()];
		int i = 0;
		for (Map.Entry<InstanceKey, Instant> renewal : renewals.entrySet()) {
			services[i] = renewal.getKey().service();
			ids[i] = renewal.getKey().id();
			times[i] = Timestamp.from(renewal.getValue());
			i++;
		}
		List<Map.Entry<InstanceKey, LeaseStatus>> rows = template.query(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					WITH locked AS MATERIALIZED (
					  SELECT i.service, i.id, v.at
					    FROM instance AS i
					    JOIN unnest(?::text[], ?::text[], ?::timestamptz[]) AS v(service, id, at)
					      ON i.service = v.service AND i.id = v.id
					   ORDER BY i.service, i.id
					     FOR NO KEY UPDATE OF i)
					UPDATE instance AS i SET last_renewed_at = greatest(i.last_renewed_at, l.at)
					  FROM locked AS l
					 WHERE i.service = l.service AND i.id = l.id
					RETURNING i.service, i.id, i.mode, i.effective_weight, i.lease_ttl_seconds, i.health""");
			Array serviceArray = connection.createArrayOf("text", services);
			Array idArray = connection.createArrayOf("text", ids);
			Array timeArray = connection.createArrayOf("timestamptz", times);
			statement.setArray(1, serviceArray);
			statement.setArray(2, idArray);
			statement.setArray(3, timeArray);
			return statement;
		}, (rs, row) -> Map.entry(new InstanceKey(rs.getString(1), rs.getString(2)),
				new LeaseStatus(Mode.valueOf(rs.getString(3)), Weight.of(rs.getInt(4)),
						LeaseTtl.ofSeconds(rs.getInt(5)), Health.valueOf(rs.getString(6)))));
		return Map.ofEntries(rows.toArray(Map.Entry[]::new));
	}

	/**
	 * Extends every current lease by the time the registry was not watching, in batches
	 * of {@link #EXTENSION_BATCH} rows: one statement over 100,000 leases outlived the 5
	 * s statement timeout. Each batch locks its rows in key order as {@link #renew} does,
	 * so another node's flush cannot deadlock with it, and continues after the last key
	 * of the one before, in the database's own ordering.
	 */
	public int extendLeases(Duration by) {
		int extended = 0;
		String afterService = "";
		String afterId = "";
		while (true) {
			Optional<ExtendedBatch> batch = jdbc.sql("""
					WITH locked AS MATERIALIZED (
					  SELECT service, id FROM instance
					   WHERE health = 'PASSING' AND (service, id) > (?, ?)
					   ORDER BY service, id
					   LIMIT ?
					     FOR NO KEY UPDATE),
					extended AS (
					  UPDATE instance AS i SET last_renewed_at = i.last_renewed_at + make_interval(secs => ?)
					    FROM locked AS l
					   WHERE i.service = l.service AND i.id = l.id
					  RETURNING 1)
					SELECT (SELECT count(*) FROM extended), service, id FROM locked
					 ORDER BY service DESC, id DESC
					 LIMIT 1""")
				.params(afterService, afterId, EXTENSION_BATCH, by.toMillis() / 1000.0)
				.query((rs, row) -> new ExtendedBatch(rs.getInt(1), rs.getString(2), rs.getString(3)))
				.optional();
			if (batch.isEmpty()) {
				return extended;
			}
			extended += batch.get().rows();
			afterService = batch.get().lastService();
			afterId = batch.get().lastId();
		}
	}

	private record ExtendedBatch(int rows, String lastService, String lastId) {
	}

	/**
	 * Services with a lease that ran out as of {@code judgedAt}, or with expired
	 * instances.
	 */
	public List<String> servicesToSweep(Instant judgedAt) {
		return jdbc.sql("""
				SELECT DISTINCT service FROM instance
				 WHERE health = 'CRITICAL'
				    OR last_renewed_at + make_interval(secs => lease_ttl_seconds) < ?
				 ORDER BY service""").param(Timestamp.from(judgedAt)).query(String.class).list();
	}

}
