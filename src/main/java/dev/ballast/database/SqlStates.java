package dev.ballast.database;

import java.sql.SQLException;
import java.util.Optional;
import java.util.function.Function;

/** Finds the kind of refusal a failure is by the SQLSTATE PostgreSQL gave it. */
final class SqlStates {

	/** Causes followed at most, so that a cycle of causes cannot loop. */
	private static final int DEPTH = 32;

	private SqlStates() {
	}

	/**
	 * The first of {@code kinds} whose SQLSTATE {@code failure}, or anything it was
	 * caused by, carries (pgjdbc gives a failed batch the SQLSTATE of the statement that
	 * failed in it).
	 */
	static <K> Optional<K> causing(Throwable failure, K[] kinds, Function<K, String> sqlState) {
		Throwable cause = failure;
		for (int depth = 0; cause != null && depth < DEPTH; depth++) {
			if (cause instanceof SQLException sql) {
				for (K kind : kinds) {
					if (sqlState.apply(kind).equals(sql.getSQLState())) {
						return Optional.of(kind);
					}
				}
			}
			cause = cause.getCause();
		}
		return Optional.empty();
	}

}
