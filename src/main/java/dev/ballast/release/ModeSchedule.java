package dev.ballast.release;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import dev.ballast.database.AdvisoryLock;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code mode_schedule} table: at most one pending step per instance. */
@Repository
class ModeSchedule {

	private final JdbcClient jdbc;

	ModeSchedule(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Held for a scheduler transaction, so one node at a time applies steps. */
	boolean tryLead() {
		return AdvisoryLock.MODE_SCHEDULE.tryTake(jdbc);
	}

	/**
	 * The steps due by {@code now}, locked; rows another transaction holds are skipped.
	 */
	List<ScheduledStep> due(Instant now, int limit) {
		return jdbc.sql("""
				SELECT * FROM mode_schedule WHERE due_at <= ?
				 ORDER BY service, instance_id LIMIT ? FOR UPDATE SKIP LOCKED""")
			.params(Timestamp.from(now), limit)
			.query(ModeSchedule::step)
			.list();
	}

	void put(ScheduledStep step) {
		jdbc.sql("""
				INSERT INTO mode_schedule (service, instance_id, kind, ramp_from, started_at, duration_ms, step_ms,
				                           zero_revision, confirm_deadline, awaiting, due_at, planned_weight)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?)
				ON CONFLICT (service, instance_id) DO UPDATE SET
				       kind = EXCLUDED.kind, ramp_from = EXCLUDED.ramp_from, started_at = EXCLUDED.started_at,
				       duration_ms = EXCLUDED.duration_ms, step_ms = EXCLUDED.step_ms,
				       zero_revision = EXCLUDED.zero_revision, confirm_deadline = EXCLUDED.confirm_deadline,
				       awaiting = EXCLUDED.awaiting,
				       due_at = EXCLUDED.due_at, planned_weight = EXCLUDED.planned_weight""")
			.params(step.service(), step.instanceId(), step.kind().name(), step.rampFrom(),
					Timestamp.from(step.startedAt()), step.duration().toMillis(), step.step().toMillis(),
					step.zeroRevision(), step.confirmDeadline() == null ? null : Timestamp.from(step.confirmDeadline()),
					textArray(step.awaiting()), Timestamp.from(step.dueAt()), step.plannedWeight())
			.update();
	}

	void remove(String service, String instanceId) {
		jdbc.sql("DELETE FROM mode_schedule WHERE service = ? AND instance_id = ?")
			.params(service, instanceId)
			.update();
	}

	private static ScheduledStep step(ResultSet rs, int row) throws SQLException {
		long zero = rs.getLong("zero_revision");
		Long zeroRevision = rs.wasNull() ? null : zero;
		Timestamp deadline = rs.getTimestamp("confirm_deadline");
		return new ScheduledStep(rs.getString("service"), rs.getString("instance_id"),
				ScheduledStep.Kind.valueOf(rs.getString("kind")), rs.getInt("ramp_from"),
				rs.getTimestamp("started_at").toInstant(), Duration.ofMillis(rs.getLong("duration_ms")),
				Duration.ofMillis(rs.getLong("step_ms")), zeroRevision, deadline == null ? null : deadline.toInstant(),
				awaiting(rs.getArray("awaiting")), rs.getTimestamp("due_at").toInstant(),
				rs.getObject("planned_weight", Integer.class));
	}

	private static List<String> awaiting(Array array) throws SQLException {
		return array == null ? List.of() : List.of((String[]) array.getArray());
	}

	/**
	 * A PostgreSQL array literal of subscriber names (their pattern admits no quote or
	 * backslash; quoting keeps a subscriber named NULL a name).
	 */
	private static String textArray(List<String> names) {
		return names.stream().map(name -> "\"" + name + "\"").collect(Collectors.joining(",", "{", "}"));
	}

}
