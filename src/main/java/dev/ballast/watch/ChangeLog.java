package dev.ballast.watch;

import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

import dev.ballast.database.CommitBatch;
import dev.ballast.database.Synchronizations;
import dev.ballast.instance.InstanceChanged;
import dev.ballast.instance.InstanceChanges;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.ServiceChanged;
import dev.ballast.instance.ServiceRemoved;
import tools.jackson.databind.ObjectMapper;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

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
 */
@Component
class ChangeLog implements InstanceChanges {

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
			    RETURNING service, revision)
			SELECT pg_notify('%s', %s)::text
			  FROM (SELECT service, max(revision) AS revision FROM logged GROUP BY service) AS changed"""
		.formatted(CHANNEL, Notice.PAYLOAD_SQL), "text", "int8", "text", "text", "text", "text");

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
	public void changed(InstanceChanged change) {
		String service = change.service().value();
		String id = change.id().value();
		if (change.removed()) {
			String data = json.writeValueAsString(new Removal(service, id, change.revision()));
			append(new Change(service, change.revision(), Change.Kind.REMOVE, id, null, data), data, change.at());
		}
		else {
			InstanceView instance = change.instance();
			String data = json.writeValueAsString(instance);
			append(new Change(service, change.revision(), Change.Kind.UPSERT, id, instance, data), data, change.at());
		}
	}

	@EventListener
	void on(ServiceChanged change) {
		append(new Change(change.service().value(), change.revision(), Change.Kind.SERVICE, null, null, null,
				change.settings().locality()), json.writeValueAsString(change.settings()), change.at());
	}

	@EventListener
	void on(ServiceRemoved removal) {
		String service = removal.service().value();
		String data = json.writeValueAsString(new Deletion(service, removal.revision()));
		append(new Change(service, removal.revision(), Change.Kind.DELETE, null, null, data), data, removal.at());
	}

	private void append(Change change, String payload, Instant at) {
		// The notification is delivered when (and only if) the transaction commits, to
		// every node listening, this one included: that is how watchers everywhere learn
		// of it. The row goes in with the transaction's other appended rows, just before
		// it commits: nothing reads it before then.
		batch.append(ROWS, change.service(), change.revision(), change.kind().name(), change.instanceId(), payload,
				at.toString());
		Synchronizations.afterCommit(handOver, change);
	}

	/** The payload of a {@code remove} event. */
	record Removal(String service, String id, long revision) {
	}

	/** The payload of a {@code delete} event. */
	record Deletion(String service, long revision) {
	}

}
