package dev.ballast.database;

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

	private final String sqlState;

	DatabaseTimeout(String sqlState) {
		this.sqlState = sqlState;
	}

	/**
	 * The timeout that {@code failure}, or anything it was caused by, is, if any (pgjdbc
	 * gives a failed batch the SQLSTATE of the statement that failed in it).
	 */
	public static Optional<DatabaseTimeout> causing(Throwable failure) {
		return SqlStates.causing(failure, values(), timeout -> timeout.sqlState);
	}

}
