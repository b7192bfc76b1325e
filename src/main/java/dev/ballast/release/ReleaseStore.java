package dev.ballast.release;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.ServiceStore;
import dev.ballast.weight.Weight;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/**
 * The {@code release} table. A release is named by its service and its number there
 * ({@code number}, shown as its id): the table's own key stays inside.
 */
@Repository
class ReleaseStore {

	private static final TypeReference<Map<String, String>> SELECTOR = new TypeReference<>() {
	};

	private static final TypeReference<Map<String, Weight>> WEIGHTS = new TypeReference<>() {
	};

	private final JdbcTemplate jdbc;

	private final ObjectMapper json;

	ReleaseStore(JdbcTemplate jdbc, ObjectMapper json, ServiceStore services) {
		this.jdbc = jdbc;
		this.json = json;
		// The service list shows each service's release under way; the table is ours.
		services.readReleasesWith(this::numbersUnderWay);
	}

	/**
	 * Stores a new release under the next number of its service; the caller holds the
	 * service's lock, so two releases of one service are never numbered at once.
	 */
	Release insert(Release release) {
		GeneratedKeyHolder key = new GeneratedKeyHolder();
		jdbc.update(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					INSERT INTO release (service, from_selector, to_selector, from_ids, to_ids, original, total_weight,
					                     steps, step_interval_seconds, step, state, state_reason, next_step_at,
					                     created_at, updated_at, number)
					VALUES (?, ?::jsonb, ?::jsonb, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?,
					        (SELECT coalesce(max(number), 0) + 1 FROM release WHERE service = ?))""",
					new String[] { "number" });
			statement.setString(1, release.service());
			statement.setString(2, json.writeValueAsString(release.from()));
			statement.setString(3, json.writeValueAsString(release.to()));
			statement.setArray(4, connection.createArrayOf("text", release.fromIds().toArray()));
			statement.setArray(5, connection.createArrayOf("text", release.toIds().toArray()));
			statement.setString(6, json.writeValueAsString(release.original()));
			statement.setLong(7, release.totalWeight());
			statement.setArray(8, connection.createArrayOf("integer", release.steps().toArray()));
			statement.setInt(9, release.stepIntervalSeconds());
			statement.setInt(10, release.step());
			statement.setString(11, release.state().name());
			statement.setString(12, release.stateReason());
			statement.setTimestamp(13, timestamp(release.nextStepAt()));
			statement.setTimestamp(14, Timestamp.from(release.createdAt()));
			statement.setTimestamp(15, Timestamp.from(release.createdAt()));
			statement.setString(16, release.service());
			return statement;
		}, key);
		long id = ((Number) key.getKeys().get("number")).longValue();
		return new Release(id, release.service(), release.from(), release.to(), release.fromIds(), release.toIds(),
				release.original(), release.totalWeight(), release.steps(), release.stepIntervalSeconds(),
				release.step(), release.state(), release.stateReason(), release.nextStepAt(), release.createdAt());
	}

	void update(Release release, Instant now) {
		jdbc.update("""
				UPDATE release SET step = ?, state = ?, state_reason = ?, next_step_at = ?, original = ?::jsonb,
				                   total_weight = ?, updated_at = ?
				 WHERE service = ? AND number = ?""", release.step(), release.state().name(), release.stateReason(),
				timestamp(release.nextStepAt()), json.writeValueAsString(release.original()), release.totalWeight(),
				Timestamp.from(now), release.service(), release.id());
	}

	Optional<Release> find(String service, long id) {
		return jdbc.query("SELECT * FROM release WHERE service = ? AND number = ?", this::release, service, id)
			.stream()
			.findFirst();
	}

	/**
	 * A release of the service, locked; the service row is locked first by the caller.
	 */
	Optional<Release> lock(String service, long id) {
		return jdbc
			.query("SELECT * FROM release WHERE service = ? AND number = ? FOR UPDATE", this::release, service, id)
			.stream()
			.findFirst();
	}

	Optional<Release> underWay(String service) {
		return jdbc
			.query("SELECT * FROM release WHERE service = ? AND state IN ('ACTIVE', 'PAUSED')", this::release, service)
			.stream()
			.findFirst();
	}

	/** The number of each service's release under way, by service. */
	Map<String, Long> numbersUnderWay() {
		Map<String, Long> numbers = new HashMap<>();
		jdbc.query("SELECT service, number FROM release WHERE state IN ('ACTIVE', 'PAUSED')", rs -> {
			numbers.put(rs.getString(1), rs.getLong(2));
		});
		return numbers;
	}

	List<Release> list(String service) {
		return jdbc.query("SELECT * FROM release WHERE service = ? ORDER BY number DESC LIMIT 100", this::release,
				service);
	}

	/** Services and ids of active releases due to advance by themselves. */
	List<Map.Entry<String, Long>> due(Instant now) {
		return jdbc.query("""
				SELECT service, number FROM release WHERE state = 'ACTIVE' AND next_step_at <= ?
				 ORDER BY service LIMIT 100""", (rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)),
				Timestamp.from(now));
	}

	private Release release(ResultSet rs, int row) throws SQLException {
		Timestamp next = rs.getTimestamp("next_step_at");
		return new Release(rs.getLong("number"), rs.getString("service"),
				json.readValue(rs.getString("from_selector"), SELECTOR),
				json.readValue(rs.getString("to_selector"), SELECTOR), texts(rs.getArray("from_ids")),
				texts(rs.getArray("to_ids")), json.readValue(rs.getString("original"), WEIGHTS),
				rs.getLong("total_weight"), List.of((Integer[]) rs.getArray("steps").getArray()),
				rs.getInt("step_interval_seconds"), rs.getInt("step"), Release.State.valueOf(rs.getString("state")),
				rs.getString("state_reason"), next == null ? null : next.toInstant(),
				rs.getTimestamp("created_at").toInstant());
	}

	private static List<String> texts(Array array) throws SQLException {
		return List.of((String[]) array.getArray());
	}

	private static Timestamp timestamp(Instant instant) {
		return instant == null ? null : Timestamp.from(instant);
	}

}
