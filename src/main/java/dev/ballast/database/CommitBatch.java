package dev.ballast.database;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Rows a transaction writes and does not read back until it commits (change-log rows and
 * their notification, audit events, a group's instance rows), written together just
 * before it commits, or earlier when the transaction asks ({@link #flush()}): one round
 * trip to PostgreSQL carrying one statement per kind of rows ({@link Rows}), each over
 * arrays of the rows' columns, whatever their number. The statements' text depends only
 * on which kinds are present, so PostgreSQL parses and plans each once per connection
 * (the driver prepares it on the server) rather than once per transaction. They commit or
 * roll back with the transaction like any other statement of it; a transaction that rolls
 * back never sends them.
 */
@Component
public class CommitBatch {

	private final JdbcTemplate jdbc;

	CommitBatch(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Appends a row to the current transaction's batch.
	 * @param row one value per column of {@code rows}, in its order
	 * @throws IllegalStateException outside a transaction
	 */
	public void append(Rows rows, Object... row) {
		if (row.length != rows.types.size()) {
			throw new IllegalArgumentException(
					"%d values for the %d columns of %s".formatted(row.length, rows.types.size(), rows.sql));
		}
		pending(rows.sql).rows.computeIfAbsent(rows, key -> new ArrayList<>()).add(row);
	}

	/**
	 * Writes what the current transaction has appended now, for a transaction about to
	 * read rows it appended.
	 */
	public void flush() {
		Pending pending = find();
		if (pending != null) {
			pending.write();
		}
	}

	private Pending pending(String what) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			throw new IllegalStateException("appended rows need a transaction to commit with: " + what);
		}
		return Synchronizations.findOrRegister(Pending.class, this::owns, () -> new Pending(this));
	}

	private Pending find() {
		return Synchronizations.find(Pending.class, this::owns);
	}

	private boolean owns(Pending pending) {
		return pending.owner == this;
	}

	private void write(Map<Rows, List<Object[]>> batch) {
		List<Rows> kinds = batch.keySet().stream().sorted(Comparator.comparingInt(Rows::rank)).toList();
		String sql = kinds.stream().map(Rows::sql).collect(Collectors.joining(";\n"));
		jdbc.execute((ConnectionCallback<Void>) connection -> {
			try (PreparedStatement statement = connection.prepareStatement(sql)) {
				int index = 1;
				for (Rows kind : kinds) {
					index = kind.bind(connection, statement, index, batch.get(kind));
				}
				// One result per kind, in their order: each kind is one statement.
				boolean rows = statement.execute();
				for (Rows kind : kinds) {
					if (rows && kind.answer != null) {
						try (ResultSet answer = statement.getResultSet()) {
							kind.answer.read(answer);
						}
					}
					rows = statement.getMoreResults();
				}
			}
			return null;
		});
	}

	/**
	 * A kind of appended rows: one statement whose parameters are the rows' columns, each
	 * an array of one of the element types {@code text}, {@code int4}, {@code int8},
	 * {@code bool} (read them with {@code unnest(?::text[], ?::int8[], ...)}). Other
	 * types travel as text and are cast in the statement: a timestamp as its ISO-8601
	 * text ({@code Instant.toString()}), JSON as its text, a column of arrays as array
	 * literals ({@link #arrayLiteral}). Kinds present in one transaction are written in
	 * the order of their rank. A kind whose statement answers rows may be given an
	 * {@link Answer} that reads them ({@link #answeredBy}).
	 */
	public static final class Rows {

		private final int rank;

		private final String sql;

		private final List<String> types;

		private final Answer answer;

		public Rows(int rank, String sql, String... types) {
			this(rank, sql, null, List.of(types));
		}

		private Rows(int rank, String sql, Answer answer, List<String> types) {
			if (sql.contains(";")) {
				// The kinds' statements are sent as one, and their results told apart
				// by their order: one statement each.
				throw new IllegalArgumentException("one statement per kind of rows; got " + sql);
			}
			this.rank = rank;
			this.sql = Objects.requireNonNull(sql);
			this.answer = answer;
			this.types = types;
		}

		/**
		 * The same kind, whose statement's answer {@code answer} reads each time the
		 * transaction's rows of this kind are written.
		 */
		public Rows answeredBy(Answer answer) {
			return new Rows(rank, sql, Objects.requireNonNull(answer), types);
		}

		int rank() {
			return rank;
		}

		String sql() {
			return sql;
		}

		private int bind(Connection connection, PreparedStatement statement, int first, List<Object[]> rows)
				throws SQLException {
			for (int column = 0; column < types.size(); column++) {
				Object[] values = switch (types.get(column)) {
					case "int4" -> new Integer[rows.size()];
					case "int8" -> new Long[rows.size()];
					case "bool" -> new Boolean[rows.size()];
					default -> new String[rows.size()];
				};
				for (int row = 0; row < values.length; row++) {
					values[row] = rows.get(row)[column];
				}
				statement.setArray(first + column, connection.createArrayOf(types.get(column), values));
			}
			return first + types.size();
		}

	}

	/** Reads the rows a kind's statement answered, inside the transaction. */
	@FunctionalInterface
	public interface Answer {

		void read(ResultSet rows) throws SQLException;

	}

	/**
	 * A PostgreSQL array literal of strings, for a column of arrays (every element
	 * quoted, so that a string spelled NULL stays a string).
	 */
	public static String arrayLiteral(List<String> values) {
		return values.stream()
			.map(value -> "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
			.collect(Collectors.joining(",", "{", "}"));
	}

	/** One transaction's batch; suspended and resumed with it. */
	private static final class Pending implements TransactionSynchronization {

		private final CommitBatch owner;

		private final Map<Rows, List<Object[]>> rows = new LinkedHashMap<>();

		Pending(CommitBatch owner) {
			this.owner = owner;
		}

		void write() {
			if (!rows.isEmpty()) {
				owner.write(rows);
				rows.clear();
			}
		}

		@Override
		public void beforeCommit(boolean readOnly) {
			write();
		}

	}

}
