package dev.ballast.watch;

import dev.ballast.database.CommitBatch;
import dev.ballast.instance.InstanceChanged;
import dev.ballast.instance.ServiceChanged;
import tools.jackson.databind.ObjectMapper;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Appends one row per revision to {@code change_log}. It listens synchronously, inside
 * the writer's transaction ({@link CommitBatch}), so a change and its log row commit or
 * roll back together and the log never holds a change the state does not, or misses one
 * it does.
 */
@Component
class ChangeLog {

	/** The notification channel: its payload is the name of the service that changed. */
	static final String CHANNEL = "ballast_changes";

	/**
	 * The rows of a transaction, then one notification per service they name (PostgreSQL
	 * delivers equal notifications of one transaction once anyway).
	 */
	private static final CommitBatch.Rows ROWS = new CommitBatch.Rows(20, """
			WITH logged AS (
			    INSERT INTO change_log (service, revision, kind, instance_id, payload, changed_at)
			    SELECT service, revision, kind, instance_id, payload::jsonb, changed_at::timestamptz
			      FROM unnest(?::text[], ?::int8[], ?::text[], ?::text[], ?::text[], ?::text[])
			           AS r(service, revision, kind, instance_id, payload, changed_at)
			    RETURNING service)
			SELECT pg_notify('%s', service)::text FROM (SELECT DISTINCT service FROM logged) AS changed"""
		.formatted(CHANNEL), "text", "int8", "text", "text", "text", "text");

	private final CommitBatch batch;

	private final ObjectMapper json;

	ChangeLog(CommitBatch batch, ObjectMapper json) {
		this.batch = batch;
		this.json = json;
	}

	@EventListener
	void on(InstanceChanged change) {
		Object payload = change.removed()
				? new Removal(change.service().value(), change.id().value(), change.revision()) : change.instance();
		append(change.service().value(), change.revision(), change.removed() ? "REMOVE" : "UPSERT", change.id().value(),
				payload, change.at());
	}

	@EventListener
	void on(ServiceChanged change) {
		append(change.service().value(), change.revision(), "SERVICE", null, change.settings(), change.at());
	}

	private void append(String service, long revision, String kind, String instanceId, Object payload,
			java.time.Instant at) {
		// The notification is delivered when (and only if) the transaction commits, to
		// every node listening, this one included: that is how watchers everywhere learn
		// of it. The row goes in with the transaction's other appended rows, just before
		// it commits: nothing reads it before then.
		batch.append(ROWS, service, revision, kind, instanceId, json.writeValueAsString(payload), at.toString());
	}

	/** The payload of a {@code remove} event. */
	record Removal(String service, String id, long revision) {
	}

}
