package dev.ballast.database;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

class ConnectionFailureTest {

	@Test
	void noConnectionFromThePoolOrTheGateIsAConnectionFailure() {
		SQLTransientConnectionException refused = new SQLTransientConnectionException("timed out");
		assertThat(ConnectionFailure.isCauseOf(new CannotGetJdbcConnectionException("no", refused))).isTrue();
		assertThat(ConnectionFailure.isCauseOf(new CannotCreateTransactionException("no", refused))).isTrue();
	}

	@Test
	void connectionClassAndShutdownStatesAreConnectionFailures() {
		for (String state : new String[] { "08006", "08001", "57P01", "57P02", "57P03" }) {
			assertThat(ConnectionFailure
				.isCauseOf(new UncategorizedSQLException("read", "SELECT 1", new SQLException("gone", state))))
				.as(state)
				.isTrue();
		}
	}

	/**
	 * The race of a read with the server stopping, as it was seen in DatabaseOutageTest.
	 */
	@Test
	void aRollbackThatFailsBecauseTheConnectionIsGoneIsAConnectionFailure() {
		TransactionSystemException rollback = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed"));
		assertThat(ConnectionFailure.isCauseOf(rollback)).isTrue();
		rollback.initApplicationException(new UncategorizedSQLException("read", "SELECT 1",
				new SQLException("terminating connection due to administrator command", "57P01")));
		assertThat(ConnectionFailure.isCauseOf(rollback)).isTrue();
		TransactionSystemException hidingAConstraint = new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed"));
		hidingAConstraint.initApplicationException(new DataIntegrityViolationException("duplicate"));
		assertThat(ConnectionFailure.isCauseOf(hidingAConstraint)).isFalse();
	}

	@Test
	void timeoutsAndConstraintViolationsAreNot() {
		for (String state : new String[] { "57014", "55P03", "23505", "57P04", null }) {
			assertThat(ConnectionFailure
				.isCauseOf(new UncategorizedSQLException("read", "SELECT 1", new SQLException("no", state)))).as(state)
				.isFalse();
		}
		assertThat(ConnectionFailure.isCauseOf(new DataIntegrityViolationException("duplicate"))).isFalse();
		assertThat(ConnectionFailure.isCauseOf(new IllegalStateException("other"))).isFalse();
	}

	/** The other side of the line: what is answered as a timeout, not as an outage. */
	@Test
	void onlyLockAndStatementTimeoutsAreDatabaseTimeouts() {
		assertThat(DatabaseTimeout.causing(new CannotAcquireLockException("update",
				new SQLException("canceling statement due to lock timeout", "55P03"))))
			.contains(DatabaseTimeout.LOCK);
		assertThat(DatabaseTimeout.causing(new TransactionSystemException("commit",
				new QueryTimeoutException("select", new SQLException("canceling statement", "57014")))))
			.contains(DatabaseTimeout.STATEMENT);
		for (String state : new String[] { "08006", "57P01", "53300", "40P01", "23505", null }) {
			assertThat(DatabaseTimeout
				.causing(new UncategorizedSQLException("read", "SELECT 1", new SQLException("no", state)))).as(state)
				.isEmpty();
		}
		assertThat(DatabaseTimeout.causing(new QueryTimeoutException("the write was not committed within 10s")))
			.as("a wait of the registry's own, with no SQLSTATE")
			.isEmpty();
	}

	/**
	 * A transaction PostgreSQL rolled back to end a collision (the group commit runs it
	 * again): neither a timeout nor an outage.
	 */
	@Test
	void onlyDeadlocksAndSerializationFailuresAreTransactionConflicts() {
		SQLException deadlock = new SQLException("deadlock detected", "40P01");
		assertThat(TransactionConflict.causing(new PessimisticLockingFailureException("update", deadlock)))
			.contains(TransactionConflict.DEADLOCK);
		assertThat(TransactionConflict.causing(new TransactionSystemException("commit",
				new UncategorizedSQLException("batch", "INSERT", new SQLException("could not serialize", "40001")))))
			.contains(TransactionConflict.SERIALIZATION);
		for (String state : new String[] { "55P03", "57014", "08006", "40002", "40003", "23505", null }) {
			assertThat(TransactionConflict
				.causing(new UncategorizedSQLException("write", "UPDATE", new SQLException("no", state)))).as(state)
				.isEmpty();
		}
		assertThat(DatabaseTimeout.causing(new PessimisticLockingFailureException("update", deadlock)))
			.as("a deadlock is no timeout")
			.isEmpty();
		assertThat(ConnectionFailure.isCauseOf(new PessimisticLockingFailureException("update", deadlock)))
			.as("nor an outage")
			.isFalse();
	}

}
