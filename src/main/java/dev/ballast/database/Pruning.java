package dev.ballast.database;

import java.sql.Timestamp;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes old rows on one node at a time (an advisory lock, held until the transaction
 * ends), in batches, so that one statement stays well inside the statement timeout, and
 * at most {@value #MAX_BATCHES} batches per run: the rest waits for the next run rather
 * than hold one transaction for long.
 */
public final class Pruning {

	static final int BATCH = 10_000;

	static final int MAX_BATCHES = 20;

	private Pruning() {
	}

	/**
	 * Call inside a transaction.
	 * @param lock the advisory lock of this kind of pruning
	 * @param delete a DELETE of at most {@code LIMIT %d} rows older than its one
	 * parameter, the cutoff
	 * @return how many rows were deleted; 0 when another node is pruning
	 */
	public static int olderThan(JdbcClient jdbc, AdvisoryLock lock, String delete, Timestamp cutoff) {
		if (!lock.tryTake(jdbc)) {
			return 0;
		}
		int total = 0;
		int deleted;
		int batches = 0;
		do {
			deleted = jdbc.sql(delete.formatted(BATCH)).param(cutoff).update();
			total += deleted;
		}
		while (deleted == BATCH && ++batches < MAX_BATCHES);
		return total;
	}

}
