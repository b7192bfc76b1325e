package dev.ballast.database;

import java.sql.SQLException;
import java.util.Optional;

/**
 * A request that ran into one of its session's own limits: the database is up and
 * answered, but this request waited too long for a lock or ran a statement too long, and
 * PostgreSQL cancelled it (rolling its transaction back). Unlike a
 * {@link ConnectionFailure}, retrying soon is likely to succeed, and nothing says the
 * database is down.
 */
public enum DatabaseTimeout {

	/**
	 * SQLSTATE 55P03 lock_not_available: a lock wait ran past {@code lock_timeout} (a row
	 * or an advisory lock another transaction holds).
	 */
	LOCK("55P03"),

	/**
	 * SQLSTATE 57014 query_canceled: a statement ran past {@code statement_timeout}, or
	 * was cancelled.
	 */
	STATEMENT("57014");

	/** Causes followed at most, so that a cycle of causes cannot loop. */
	private static final int DEPTH = 32;

	private final String sqlState;

	DatabaseTimeout(String sqlState) {
		this.sqlState = sqlState;
	}

	/**
	 * The timeout that {@code failure}, or anything it was caused by, is, if any (pgjdbc
	 * gives a failed batch the SQLSTATE of the statement that failed in it).
	 */
	public static Optional<DatabaseTimeout> causing(Throwable failure) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < DEPTH; depth++) {
			if (cause instanceof SQLException sql) {
				for (DatabaseTimeout timeout : values()) {
					if (timeout.sqlState.equals(sql.getSQLState())) {
						return Optional.of(timeout);
					}
				}
			}
			cause = cause.getCause();
		}
		return Optional.empty();
	}

}
