package dev.ballast.watch;

import java.sql.Timestamp;
import java.time.Clock;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.Pruning;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deletes changes older than the retention. A client resuming from a revision the log no
 * longer holds gets a fresh snapshot instead, so this only ever costs a bigger answer.
 */
@Component
class ChangeLogRetention {

	private final JdbcClient jdbc;

	private final Clock clock;

	private final WatchSettings settings;

	ChangeLogRetention(JdbcClient jdbc, Clock clock, WatchSettings settings) {
		this.jdbc = jdbc;
		this.clock = clock;
		this.settings = settings;
	}

	/** Prunes on one node at a time; returns how many changes were deleted. */
	@Transactional
	int prune() {
		Timestamp cutoff = Timestamp.from(clock.instant().minus(settings.retention()));
		return Pruning.olderThan(jdbc, AdvisoryLock.CHANGE_LOG_PRUNING, """
				DELETE FROM change_log WHERE ctid IN (
				    SELECT ctid FROM change_log WHERE changed_at < ? LIMIT %d)""", cutoff);
	}

}
