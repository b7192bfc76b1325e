package dev.ballast.lease;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.NodeFacts;
import dev.ballast.registry.Leases;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The lease module's own table: the sweep's tick ({@code lease_sweep}). The lease columns
 * of {@code instance} are the registry's ({@link Leases}); how far each node wrote the
 * renewals it absorbed is a fact of the node table ({@link NodeFacts}).
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

}
