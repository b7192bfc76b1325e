package dev.ballast.database;

import java.sql.SQLException;
import java.util.Optional;

/**
 * Why PostgreSQL, up and answering, refused a request and rolled its transaction back: a
 * wait ran into one of the session's own limits, or the transaction collided with a
 * concurrent one. Unlike a {@link ConnectionFailure}, nothing says the database is down,
 * nothing of the transaction was stored, and the same request a moment later is likely to
 * pass.
 */
public enum RolledBack {

	/**
	 * SQLSTATE 55P03 lock_not_available: a lock wait ran past {@code lock_timeout} (a row
	 * or an advisory lock another transaction holds).
	 */
	LOCK_TIMEOUT("55P03"),

	/**
	 * SQLSTATE 57014 query_canceled: a statement ran past {@code statement_timeout}, or
	 * was cancelled.
	 */
	STATEMENT_TIMEOUT("57014"),

	/**
	 * SQLSTATE 40P01 deadlock_detected: this transaction and another each waited for a
	 * lock the other held, and PostgreSQL broke the cycle by ending this one.
	 */
	DEADLOCK("40P01"),

	/**
	 * SQLSTATE 40001 serialization_failure: the transaction could not be ordered with a
	 * concurrent one at its isolation level.
	 */
	SERIALIZATION_FAILURE("40001");

	/** Causes followed at most, so that a cycle of causes cannot loop. */
	private static final int DEPTH = 32;

	private final String sqlState;

	RolledBack(String sqlState) {
		this.sqlState = sqlState;
	}

	/**
	 * Whether the transaction collided with another: no wait ran out, PostgreSQL picked
	 * this one to end the collision, and running the same work again at once is likely to
	 * pass.
	 */
	public boolean collision() {
		return this == DEADLOCK || this == SERIALIZATION_FAILURE;
	}

	/**
	 * Why {@code failure}, or anything it was caused by, was rolled back, if it is one of
	 * these (pgjdbc gives a failed batch the SQLSTATE of the statement that failed in
	 * it).
	 */
	public static Optional<RolledBack> causing(Throwable failure) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < DEPTH; depth++) {
			if (cause instanceof SQLException sql) {
				for (RolledBack reason : values()) {
					if (reason.sqlState.equals(sql.getSQLState())) {
						return Optional.of(reason);
					}
				}
			}
			cause = cause.getCause();
		}
		return Optional.empty();
	}

}
