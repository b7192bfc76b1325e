package dev.ballast.audit;

import java.time.Clock;

import dev.ballast.database.CommitBatch;
import dev.ballast.web.RequestIds;
import tools.jackson.databind.ObjectMapper;

import org.springframework.stereotype.Component;

/**
 * Writes audit events. It appends its rows to the writer's transaction's
 * {@link CommitBatch}, which refuses them without one, so an event and its change commit
 * or roll back together: an acknowledged write always has its event, a refused one never
 * does. (No transactional proxy: the batch's check is the same, and a proxy's interceptor
 * cost more per write than the rest of the audit.)
 */
@Component
public class AuditTrail {

	/** A transaction's events, in the order recorded (their ids ascending). */
	private static final CommitBatch.Rows ROWS = new CommitBatch.Rows(30, """
			INSERT INTO audit_event (at, token_id, token_name, action, service, instance, before, after,
			                         normalizations, forced, request_id, details)
			SELECT at::timestamptz, token_id, token_name, action, service, instance, before::jsonb, after::jsonb,
			       normalizations::text[], forced, request_id, details::jsonb
			  FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
			              ?::text[], ?::bool[], ?::text[], ?::text[]) WITH ORDINALITY
			       AS e(at, token_id, token_name, action, service, instance, before, after, normalizations, forced,
			            request_id, details, n)
			 ORDER BY n""", "text", "text", "text", "text", "text", "text", "text", "text", "text", "bool", "text",
			"text");

	private final CommitBatch batch;

	private final ObjectMapper json;

	private final Actors actors;

	private final Clock clock;

	AuditTrail(CommitBatch batch, ObjectMapper json, Actors actors, Clock clock) {
		this.batch = batch;
		this.json = json;
		this.actors = actors;
		this.clock = clock;
	}

	/** Records a change requested by the caller of the current request. */
	public void record(AuditEntry entry) {
		write(entry, actors.current());
	}

	/** Records a change the registry made by itself. */
	public void recordSystem(AuditEntry entry) {
		write(entry, Actor.SYSTEM);
	}

	private void write(AuditEntry entry, Actor actor) {
		batch.append(ROWS, clock.instant().toString(), actor.tokenId(), actor.tokenName(), entry.action().code(),
				entry.service(), entry.instance(), jsonOrNull(entry.before()), jsonOrNull(entry.after()),
				CommitBatch.arrayLiteral(entry.normalizations()), entry.forced(), RequestIds.current(),
				entry.details().isEmpty() ? null : json.writeValueAsString(entry.details()));
	}

	private String jsonOrNull(Object value) {
		return value == null ? null : json.writeValueAsString(value);
	}

}
