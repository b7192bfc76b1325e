package dev.ballast.database;

import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlTypeValue;
import org.springframework.jdbc.core.StatementCreatorUtils;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Rows a transaction appends and never reads back (change-log rows and their
 * notification, audit events), written together just before it commits: one round trip to
 * PostgreSQL carrying every statement (the driver sends a prepared statement of several
 * commands in one exchange), in the order they were appended. They commit or roll back
 * with the transaction like any other statement of it; a transaction that rolls back
 * never sends them.
 */
@Component
public class CommitBatch {

	private final JdbcTemplate jdbc;

	CommitBatch(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Appends a statement to the current transaction's batch.
	 * @throws IllegalStateException outside a transaction
	 */
	public void append(String sql, Object... params) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			throw new IllegalStateException("appended rows need a transaction to commit with: " + sql);
		}
		Pending pending = null;
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof Pending found && found.owner == this) {
				pending = found;
			}
		}
		if (pending == null) {
			pending = new Pending(this);
			TransactionSynchronizationManager.registerSynchronization(pending);
		}
		pending.statements.add(new Statement(sql, params));
	}

	private void write(List<Statement> statements) {
		StringBuilder sql = new StringBuilder();
		List<Object> params = new ArrayList<>();
		for (Statement statement : statements) {
			sql.append(sql.isEmpty() ? "" : ";\n").append(statement.sql());
			params.addAll(Arrays.asList(statement.params()));
		}
		jdbc.execute((ConnectionCallback<Void>) connection -> {
			try (PreparedStatement batch = connection.prepareStatement(sql.toString())) {
				for (int i = 0; i < params.size(); i++) {
					StatementCreatorUtils.setParameterValue(batch, i + 1, SqlTypeValue.TYPE_UNKNOWN, params.get(i));
				}
				boolean rows = batch.execute();
				while (rows || batch.getUpdateCount() != -1) {
					rows = batch.getMoreResults();
				}
			}
			return null;
		});
	}

	private record Statement(String sql, Object[] params) {
	}

	/** One transaction's batch; suspended and resumed with it. */
	private static final class Pending implements TransactionSynchronization {

		private final CommitBatch owner;

		private final List<Statement> statements = new ArrayList<>();

		Pending(CommitBatch owner) {
			this.owner = owner;
		}

		@Override
		public void beforeCommit(boolean readOnly) {
			if (!statements.isEmpty()) {
				owner.write(statements);
				statements.clear();
			}
		}

	}

}
