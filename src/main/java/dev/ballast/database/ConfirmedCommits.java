package dev.ballast.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;

import javax.sql.DataSource;

import org.postgresql.util.PSQLWarning;
import org.postgresql.util.ServerErrorMessage;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Spring's transaction manager, with a commit that is acknowledged only when PostgreSQL
 * confirmed it. Two COMMITs end without that confirmation, and both are reported as
 * {@link CommitUnconfirmedException} instead of success or "nothing was written":
 * <ul>
 * <li>The connection failed while the COMMIT was on its way or waited for its answer (the
 * server died, the socket timeout passed while a synchronous standby did not
 * acknowledge): the transaction may have committed, or not.</li>
 * <li>With synchronous replication, a COMMIT whose wait for the standby was cancelled (a
 * cancel request, such as {@code pg_cancel_backend}) answers success with a warning: "the
 * transaction has already committed locally, but might not have been replicated to the
 * standby". It is visible at once, and a failover now would lose it: it is not an
 * acknowledged write. PostgreSQL's {@code statement_timeout} never causes this (the
 * server disables it before it commits), nor does a backend being terminated (it then
 * answers nothing).</li>
 * </ul>
 */
final class ConfirmedCommits extends JdbcTransactionManager {

	/** The server function that waits for synchronous standbys, naming the warning. */
	private static final String SYNCHRONOUS_WAIT = "SyncRepWaitForLSN";

	/**
	 * Set on the thread whose commit was just found unconfirmed: Spring then rolls the
	 * transaction back, which has nothing to undo (its COMMIT was sent) and, on a broken
	 * connection, fails and would be thrown in place of the
	 * {@link CommitUnconfirmedException}, as if nothing had been written.
	 */
	private final ThreadLocal<Boolean> unconfirmed = new ThreadLocal<>();

	ConfirmedCommits(DataSource dataSource) {
		super(dataSource);
	}

	@Override
	protected void doCommit(DefaultTransactionStatus status) {
		Connection connection = ((ConnectionHolder) TransactionSynchronizationManager.getResource(obtainDataSource()))
			.getConnection();
		try {
			connection.clearWarnings();
		}
		catch (SQLException ex) {
			throw translateException("JDBC clearWarnings", ex);
		}
		try {
			super.doCommit(status);
		}
		catch (RuntimeException ex) {
			if (ConnectionFailure.isCauseOf(ex)) {
				throw new CommitUnconfirmedException("the connection to the database failed during the commit, which "
						+ "may or may not have taken effect", ex);
			}
			throw ex;
		}
		if (replicationUnconfirmed(connection)) {
			throw new CommitUnconfirmedException("the write committed on the primary, but its wait for the "
					+ "synchronous standby was cancelled: it may not be replicated, and a failover would lose it",
					null);
		}
	}

	private boolean replicationUnconfirmed(Connection connection) {
		try {
			for (SQLWarning warning = connection.getWarnings(); warning != null; warning = warning.getNextWarning()) {
				ServerErrorMessage message = warning instanceof PSQLWarning server ? server.getServerErrorMessage()
						: null;
				if (message != null && SYNCHRONOUS_WAIT.equals(message.getRoutine())) {
					return true;
				}
			}
			return false;
		}
		catch (SQLException ex) {
			// The connection cannot tell: the commit was answered, and is taken as it
			// was.
			return false;
		}
	}

}
