package dev.ballast.watch;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.ballast.database.CommitBatch;
import dev.ballast.database.Synchronizations;
import dev.ballast.registry.Changed;
import dev.ballast.registry.InstanceChanged;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceChanged;
import dev.ballast.registry.ServiceRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.ObjectMapper;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * Appends one row per revision to {@code change_log}. It listens synchronously, inside
 * the writer's transaction ({@link CommitBatch}), so a change and its log row commit or
 * roll back together and the log never holds a change the state does not, or misses one
 * it does.
 *
 * <p>
 * Once the transaction has committed, and only then, its changes go straight to this
 * node's delivering thread ({@link Streams#committed}), with the very bytes the log
 * holds: a watcher on this node does not wait for the notification and a read of the log.
 * The log still brings them, to every node, and to this one whatever that shortcut
 * missed.
 *
 * <p>
 * The database stamps each row with the history it is committed in (the column's default,
 * {@code ballast_history()}); the statement that writes the rows answers that history,
 * which the changes handed over carry, so that their event ids are those of the rows.
 */
@Component
class ChangeLog implements Changed {

	private static final Logger log = LoggerFactory.getLogger(ChangeLog.class);

	/**
	 * The notification channel: its payload is the service that changed and its revision
	 * ({@link Notice}).
	 */
	static final String CHANNEL = "ballast_changes";

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
			          FROM logged GROUP BY service) AS changed""".formatted(CHANNEL, Notice.PAYLOAD_SQL), "text",
			"int8", "text", "text", "text", "text")
		.answeredBy(ChangeLog::stamped);

	private final CommitBatch batch;

	private final ObjectMapper json;

	/**
	 * A transaction's changes, in the order they were logged (revision order within each
	 * service), handed to this node's streams if it commits.
	 */
	private final Consumer<List<Change>> handOver;

	ChangeLog(CommitBatch batch, ObjectMapper json, Streams streams) {
		this.batch = batch;
		this.json = json;
		this.handOver = streams::committed;
	}

	@Override
	public void instance(InstanceChanged change) {
		String service = change.service().value();
		String id = change.id().value();
		if (change.removed()) {
			String data = json.writeValueAsString(new Removal(service, id, change.revision()));
			append(new Change(service, unstamped(change.revision()), Change.Kind.REMOVE, id, null, data), data,
					change.at());
		}
		else {
			InstanceView instance = change.instance();
			String data = json.writeValueAsString(instance);
			append(new Change(service, unstamped(change.revision()), Change.Kind.UPSERT, id, instance, data), data,
					change.at());
		}
	}

	@Override
	public void settings(ServiceChanged change) {
		append(new Change(change.service().value(), unstamped(change.revision()), Change.Kind.SERVICE, null, null, null,
				change.settings().locality()), json.writeValueAsString(change.settings()), change.at());
	}

	@Override
	public void removed(ServiceRemoved removal) {
		String service = removal.service().value();
		String data = json.writeValueAsString(new Deletion(service, removal.revision()));
		append(new Change(service, unstamped(removal.revision()), Change.Kind.DELETE, null, null, data), data,
				removal.at());
	}

	private void append(Change change, String payload, Instant at) {
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
	 * A transaction's logged changes, handed over once it commits, in the history their
	 * rows were stamped with.
	 */
	private static final class Logged implements TransactionSynchronization {

		private final ChangeLog owner;

		private final List<Change> changes = new ArrayList<>();

		private long history = Position.UNKNOWN;

		Logged(ChangeLog owner) {
			this.owner = owner;
		}

		@Override
		public void afterCommit() {
			if (history == Position.UNKNOWN) {
				// Never expected: the rows' statement answers it. The log still brings
				// the changes, with their history, to every node.
				log.error("{} changes committed without the history their rows were stamped with; "
						+ "left to the change log", changes.size());
				return;
			}
			owner.handOver.accept(changes.stream().map(change -> change.in(history)).toList());
		}

	}

	/** A change's position until its row tells its history. */
	private static Position unstamped(long revision) {
		return new Position(revision, Position.UNKNOWN);
	}

	/** The payload of a {@code remove} event. */
	record Removal(String service, String id, long revision) {
	}

	/** The payload of a {@code delete} event. */
	record Deletion(String service, long revision) {
	}

}
