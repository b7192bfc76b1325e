package dev.ballast.database;

import java.util.Optional;

/**
 * A transaction PostgreSQL rolled back because it collided with a concurrent one: the
 * database is up, nothing of the transaction was stored, and the same work run again
 * (once the other transaction has gone its way) is likely to pass. Unlike a
 * {@link DatabaseTimeout}, no wait ran out: PostgreSQL picked this transaction to end the
 * collision.
 */
public enum TransactionConflict {

	/**
	 * SQLSTATE 40P01 deadlock_detected: this transaction and another each waited for a
	 * lock the other held, and PostgreSQL broke the cycle by ending this one.
	 */
	DEADLOCK("40P01"),

	/**
	 * SQLSTATE 40001 serialization_failure: the transaction could not be ordered with a
	 * concurrent one at its isolation level.
	 */
	SERIALIZATION("40001");

	private final String sqlState;

	TransactionConflict(String sqlState) {
		this.sqlState = sqlState;
	}

	/** The conflict that {@code failure}, or anything it was caused by, is, if any. */
	public static Optional<TransactionConflict> causing(Throwable failure) {
		return SqlStates.causing(failure, values(), conflict -> conflict.sqlState);
	}

}
