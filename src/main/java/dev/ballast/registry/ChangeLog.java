package dev.ballast.registry;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.CommitBatch;
import dev.ballast.database.Pruning;
import dev.ballast.database.Synchronizations;
import tools.jackson.databind.ObjectMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Appends one row per revision to {@code change_log}, which the registry alone writes.
 * The write path calls it inside the writer's transaction ({@link CommitBatch}), so a
 * change and its log row commit or roll back together and the log never holds a change
 * the state does not, or misses one it does.
 *
 * <p>
 * Once the transaction has committed, and only then, its changes go to what this node
 * registered at start ({@link #onCommitted}): the watch module's delivering thread, so a
 * watcher on this node does not wait for the notification and a read of the log, and the
 * heartbeat cache. They carry the event's JSON as rendered here, which are the bytes a
 * reader of the log renders again from the row (the log holds {@code jsonb}, which keeps
 * an object's keys in an order of its own, so the row's own text differs). The log still
 * brings every change, to every node, and to this one whatever that shortcut missed.
 *
 * <p>
 * The database stamps each row with the history it is committed in (the column's default,
 * {@code ballast_history()}); the statement that writes the rows answers that history,
 * which is handed over with the changes, so that their event ids are those of the rows.
 */
@Component
public class ChangeLog {

	/**
	 * The notification channel: its payload is the service that changed and its revision,
	 * {@code service:revision} ({@link #PAYLOAD_SQL}).
	 */
	public static final String CHANNEL = "ballast_changes";

	/** The payload {@code pg_notify} sends, as an SQL expression of the logged row. */
	static final String PAYLOAD_SQL = "service || ':' || revision";

	/** The history of changes whose rows did not say theirs (never expected). */
	public static final long UNSTAMPED = -1;

	/**
	 * The rows of a transaction, then one notification per service they name, with its
	 * highest revision (PostgreSQL would deliver equal notifications of one transaction
	 * once anyway).
	 */
	private static final CommitBatch.Rows ROWS = new CommitBatch.Rows(20, """
			WITH logged AS (
			    INSERT INTO change_log (service, revision, kind, instance_id, payload, changed_at)
			    SELECT service, revision, kind, instance_id, payload::jsonb, changed_at::timestamptz
			      FROM unnest(?::text[], ?::int8[], ?::text[], ?::text[], ?::text[], ?::text[])
			           AS r(service, revision, kind, instance_id, payload, changed_at)
			    RETURNING service, revision, history)
			SELECT pg_notify('%s', %s)::text, history
			  FROM (SELECT service, max(revision) AS revision, max(history) AS history
			          FROM logged GROUP BY service) AS changed""".formatted(CHANNEL, PAYLOAD_SQL), "text", "int8",
			"text", "text", "text", "text")
		.answeredBy(ChangeLog::stamped);

	private final CommitBatch batch;

	private final ObjectMapper json;

	private final JdbcClient jdbc;

	/** Told of every committed transaction's changes, in the order registered. */
	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	ChangeLog(CommitBatch batch, ObjectMapper json, JdbcClient jdbc) {
		this.batch = batch;
		this.json = json;
		this.jdbc = jdbc;
	}

	/**
	 * What hears of this node's committed changes, registered once at start by the module
	 * that keeps something in step with them.
	 */
	@FunctionalInterface
	public interface Listener {

		/**
		 * A transaction's changes, in the order they were logged (revision order within
		 * each service), called on the committing thread right after the commit.
		 * @param history the history the rows were stamped with, or {@link #UNSTAMPED}
		 * @param changes the changes
		 */
		void committed(long history, List<LoggedChange> changes);

	}

	/** Registers what hears of every transaction's changes once it committed. */
	public void onCommitted(Listener listener) {
		listeners.add(listener);
	}

	void instance(InstanceChanged change) {
		String service = change.service().value();
		String id = change.id().value();
		if (change.removed()) {
			String data = json.writeValueAsString(new Removal(service, id, change.revision()));
			append(new LoggedChange(service, change.revision(), LoggedChange.Kind.REMOVE, id, null, data, null), data,
					change.at());
		}
		else {
			InstanceView instance = change.instance();
			String data = json.writeValueAsString(instance);
			append(new LoggedChange(service, change.revision(), LoggedChange.Kind.UPSERT, id, instance, data, null),
					data, change.at());
		}
	}

	void settings(ServiceChanged change) {
		append(new LoggedChange(change.service().value(), change.revision(), LoggedChange.Kind.SERVICE, null, null,
				null, change.settings().locality()), json.writeValueAsString(change.settings()), change.at());
	}

	void removed(ServiceRemoved removal) {
		String service = removal.service().value();
		String data = json.writeValueAsString(new Deletion(service, removal.revision()));
		append(new LoggedChange(service, removal.revision(), LoggedChange.Kind.DELETE, null, null, data, null), data,
				removal.at());
	}

	private void append(LoggedChange change, String payload, Instant at) {
		// The notification is delivered when (and only if) the transaction commits, to
		// every node listening, this one included: that is how watchers everywhere learn
		// of it. The row goes in with the transaction's other appended rows, just before
		// it commits: nothing reads it before then.
		batch.append(ROWS, change.service(), change.revision(), change.kind().name(), change.instanceId(), payload,
				at.toString());
		Synchronizations.findOrRegister(Logged.class, logged -> logged.owner == this, () -> new Logged(this)).changes
			.add(change);
	}

	/**
	 * Reads the history the rows were stamped with (one per transaction: its session's)
	 * into the transaction's {@link Logged}.
	 */
	private static void stamped(ResultSet answer) throws SQLException {
		while (answer.next()) {
			long history = answer.getLong(2);
			Synchronizations.find(Logged.class, logged -> true).history = history;
		}
	}

	/**
	 * A transaction's logged changes, handed over once it commits, with the history their
	 * rows were stamped with.
	 */
	private static final class Logged implements TransactionSynchronization {

		private final ChangeLog owner;

		private final List<LoggedChange> changes = new ArrayList<>();

		private long history = UNSTAMPED;

		Logged(ChangeLog owner) {
			this.owner = owner;
		}

		@Override
		public void afterCommit() {
			owner.listeners.forEach(listener -> listener.committed(history, changes));
		}

	}

	/**
	 * Deletes changes logged before {@code cutoff}, a batch at a time, on one node at a
	 * time ({@link Pruning}); call inside a transaction.
	 * @return how many were deleted
	 */
	public int prune(Instant cutoff) {
		return Pruning.olderThan(jdbc, AdvisoryLock.CHANGE_LOG_PRUNING, """
				DELETE FROM change_log WHERE ctid IN (
				    SELECT ctid FROM change_log WHERE changed_at < ? LIMIT %d)""", Timestamp.from(cutoff));
	}

	/*
	 * Reads, on the connections the caller gives: the watch reads the log on connections
	 * of its own, which request traffic never exhausts.
	 */

	/**
	 * The history the log holds {@code revision} of {@code service} in, or, when it no
	 * longer holds it (pruned, or revision 0), the history the database is in now.
	 */
	public long historyOrNow(JdbcTemplate on, String service, long revision) {
		return on.queryForObject(
				"""
						SELECT coalesce((SELECT history FROM change_log WHERE service = ? AND revision = ?), ballast_history())""",
				Long.class, service, revision);
	}

	/**
	 * The history the log holds {@code revision} of {@code service} in, or
	 * {@link #UNSTAMPED} when it holds no such change (lost in a failover, or pruned).
	 */
	public long history(JdbcTemplate on, String service, long revision) {
		List<Long> found = on.queryForList("SELECT history FROM change_log WHERE service = ? AND revision = ?",
				Long.class, service, revision);
		return found.isEmpty() ? UNSTAMPED : found.getFirst();
	}

	/**
	 * Up to {@code limit} changes after the given revisions, in revision order per
	 * service.
	 */
	public List<Row> after(JdbcTemplate on, Map<String, Long> positions, int limit) {
		String[] services = positions.keySet().toArray(String[]::new);
		Long[] revisions = new Long[services.length];
		for (int i = 0; i < services.length; i++) {
			revisions[i] = positions.get(services[i]);
		}
		return on.query(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					SELECT c.service, c.revision, c.history, c.kind, c.instance_id, c.payload::text
					  FROM unnest(?::text[], ?::bigint[]) AS k(service, after)
					  JOIN change_log c ON c.service = k.service AND c.revision > k.after
					 ORDER BY c.service, c.revision
					 LIMIT %d""".formatted(limit));
			Array serviceArray = connection.createArrayOf("text", services);
			Array revisionArray = connection.createArrayOf("bigint", revisions);
			statement.setArray(1, serviceArray);
			statement.setArray(2, revisionArray);
			return statement;
		}, (rs, row) -> row(rs));
	}

	/**
	 * The changes of one service in {@code [from, upTo]}, as far as the log holds them.
	 */
	public List<Row> between(JdbcTemplate on, String service, long from, long upTo) {
		return on.query("""
				SELECT service, revision, history, kind, instance_id, payload::text
				  FROM change_log
				 WHERE service = ? AND revision >= ? AND revision <= ?
				 ORDER BY revision""", (rs, row) -> row(rs), service, from, upTo);
	}

	private static Row row(ResultSet rs) throws SQLException {
		return new Row(rs.getString(1), rs.getLong(2), rs.getLong(3), LoggedChange.Kind.valueOf(rs.getString(4)),
				rs.getString(5), rs.getString(6));
	}

	/**
	 * A row of the log as read.
	 *
	 * @param service the service
	 * @param revision its revision
	 * @param history the history it was committed in
	 * @param kind what changed
	 * @param instanceId the instance, for {@link LoggedChange.Kind#UPSERT} and
	 * {@link LoggedChange.Kind#REMOVE}
	 * @param payload the payload as {@code jsonb} renders it (its own key order)
	 */
	public record Row(String service, long revision, long history, LoggedChange.Kind kind, String instanceId,
			String payload) {
	}

	/** The payload of a {@code remove} event. */
	public record Removal(String service, String id, long revision) {
	}

	/** The payload of a {@code delete} event. */
	public record Deletion(String service, long revision) {
	}

}
