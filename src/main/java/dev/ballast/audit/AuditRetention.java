package dev.ballast.audit;

import java.sql.Timestamp;
import java.time.Clock;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.Pruning;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deletes audit events older than {@code ballast.audit.retention}, on one node at a time.
 * It is the only writer the table's append-only trigger lets delete, and only because its
 * transaction says so.
 */
@Component
class AuditRetention {

	private final JdbcClient jdbc;

	private final Clock clock;

	private final AuditSettings settings;

	AuditRetention(JdbcClient jdbc, Clock clock, AuditSettings settings) {
		this.jdbc = jdbc;
		this.clock = clock;
		this.settings = settings;
	}

	/** Prunes unless another node is pruning; returns how many events were deleted. */
	@Transactional
	int prune() {
		jdbc.sql("SET LOCAL ballast.audit_retention = 'on'").update();
		Timestamp cutoff = Timestamp.from(clock.instant().minus(settings.retention()));
		return Pruning.olderThan(jdbc, AdvisoryLock.AUDIT_PRUNING, """
				DELETE FROM audit_event WHERE id IN (
				    SELECT id FROM audit_event WHERE at < ? ORDER BY at LIMIT %d)""", cutoff);
	}

}
