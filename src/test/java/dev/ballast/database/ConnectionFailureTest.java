package dev.ballast.database;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.stream.Stream;

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

	/**
	 * The other side of the line: what is answered as a database that is up refusing a
	 * request (a timeout, or a collision the group commit runs again), not as an outage.
	 */
	@Test
	void timeoutsAndCollisionsAreRollbacksOfADatabaseThatIsUp() {
		SQLException deadlock = new SQLException("deadlock detected", "40P01");
		assertThat(RolledBack.causing(new CannotAcquireLockException("update",
				new SQLException("canceling statement due to lock timeout", "55P03"))))
			.contains(RolledBack.LOCK_TIMEOUT);
		assertThat(RolledBack.causing(new TransactionSystemException("commit",
				new QueryTimeoutException("select", new SQLException("canceling statement", "57014")))))
			.contains(RolledBack.STATEMENT_TIMEOUT);
		assertThat(RolledBack.causing(new PessimisticLockingFailureException("update", deadlock)))
			.contains(RolledBack.DEADLOCK);
		assertThat(RolledBack.causing(new TransactionSystemException("commit",
				new UncategorizedSQLException("batch", "INSERT", new SQLException("could not serialize", "40001")))))
			.contains(RolledBack.SERIALIZATION_FAILURE);
		for (String state : new String[] { "08006", "57P01", "53300", "40002", "40003", "23505", null }) {
			assertThat(RolledBack
				.causing(new UncategorizedSQLException("read", "SELECT 1", new SQLException("no", state)))).as(state)
				.isEmpty();
		}
		assertThat(RolledBack.causing(new QueryTimeoutException("the write was not committed within 10s")))
			.as("a wait of the registry's own, with no SQLSTATE")
			.isEmpty();
		assertThat(ConnectionFailure.isCauseOf(new PessimisticLockingFailureException("update", deadlock)))
			.as("a deadlock is no outage")
			.isFalse();
	}

	/**
	 * Only a collision is worth running again at once; a timeout would wait as long
	 * again.
	 */
	@Test
	void onlyDeadlocksAndSerializationFailuresAreCollisions() {
		assertThat(Stream.of(RolledBack.values()).filter(RolledBack::collision))
			.containsExactlyInAnyOrder(RolledBack.DEADLOCK, RolledBack.SERIALIZATION_FAILURE);
	}

}
