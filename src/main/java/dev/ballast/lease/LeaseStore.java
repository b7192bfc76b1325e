package dev.ballast.lease;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.registry.Leases;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lease module's own tables: the sweep's tick ({@code lease_sweep}) and how far each
 * node wrote the renewals it absorbed ({@code lease_writer}). The lease columns of
 * {@code instance} are the registry's ({@link Leases}).
 */
@Repository
class LeaseStore {

	private final JdbcClient jdbc;

	LeaseStore(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Takes the sweep lock for this transaction; false when another node is sweeping. */
	boolean tryLeadSweep() {
		return AdvisoryLock.LEASE_SWEEP.tryTake(jdbc);
	}

	/** Records this sweep tick and returns the previous one, if any. */
	Optional<Instant> tick(Instant now) {
		Optional<Instant> previous = jdbc.sql("SELECT last_tick FROM lease_sweep FOR UPDATE")
			.query((rs, row) -> rs.getTimestamp(1).toInstant())
			.optional();
		jdbc.sql("""
				INSERT INTO lease_sweep (singleton, last_tick) VALUES (true, ?)
				ON CONFLICT (singleton) DO UPDATE SET last_tick = EXCLUDED.last_tick""")
			.param(Timestamp.from(now))
			.update();
		return previous;
	}

	/**
	 * Says that {@code node} has written every renewal it absorbed before
	 * {@code through}.
	 */
	void wrote(String node, Instant through) {
		jdbc.sql("""
				INSERT INTO lease_writer (node, renewals_through) VALUES (?, ?)
				ON CONFLICT (node) DO UPDATE
				  SET renewals_through = greatest(lease_writer.renewals_through, EXCLUDED.renewals_through)""")
			.params(node, Timestamp.from(through))
			.update();
	}

	/** {@code node} stops cleanly, having written all it absorbed. */
	void left(String node) {
		jdbc.sql("DELETE FROM lease_writer WHERE node = ?").param(node).update();
	}

	/**
	 * The earliest moment through which a node silent since {@code behind} but not since
	 * {@code gone} wrote its renewals; nodes silent since {@code gone} are forgotten.
	 */
	Optional<Instant> silentWritersThrough(Instant behind, Instant gone) {
		jdbc.sql("DELETE FROM lease_writer WHERE renewals_through < ?").param(Timestamp.from(gone)).update();
		return jdbc.sql("SELECT min(renewals_through) FROM lease_writer WHERE renewals_through < ?")
			.param(Timestamp.from(behind))
			.query((rs, row) -> Optional.ofNullable(rs.getTimestamp(1)).map(Timestamp::toInstant))
			.single();
	}

}
