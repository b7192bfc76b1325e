package dev.ballast.database;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;

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

}
