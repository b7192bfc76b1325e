package dev.ballast.database;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Tells a failure to reach the database (no connection, a connection lost, the server
 * shutting down) from a failure of the request itself.
 */
public final class ConnectionFailure {

	private ConnectionFailure() {
	}

	/** Whether {@code failure}, or anything it was caused by, is a connection failure. */
	public static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof CannotCreateTransactionException || cause instanceof SQLTransientConnectionException
					|| cause instanceof SQLNonTransientConnectionException) {
				return true;
			}
			if (cause instanceof SQLException sql && connectionState(sql.getSQLState())) {
				return true;
			}
			// A transaction that could not even be rolled back lost its connection
			// (Hikari then says only "Connection is closed", with no SQLSTATE), and the
			// failure it hides is the one that counts.
			if (cause instanceof TransactionSystemException transaction) {
				return transaction.getApplicationException() == null
						|| isCauseOf(transaction.getApplicationException());
			}
			if (cause.getCause() == cause) {
				return false;
			}
		}
		return false;
	}

	/**
	 * SQLSTATE class 08 (connection exception) and 57P01 to 57P03 (the server shutting
	 * down, crashed, or not accepting connections yet).
	 */
	private static boolean connectionState(String state) {
		return state != null
				&& (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03"));
	}

}
