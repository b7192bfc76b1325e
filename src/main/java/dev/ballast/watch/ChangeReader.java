package dev.ballast.watch;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.registry.ChangeLog;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.LoggedChange;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceStore;
import dev.ballast.registry.Snapshots;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Reads what the change follower needs from the database, on its reader thread: a
 * service's state (through the application's pool, in one snapshot), and the change log
 * after given revisions (on the feed's own connections). Payloads are re-rendered from
 * the typed instance record, so events carry exactly the fields and order of every other
 * response, and the bytes this node's own commits were delivered with
 * ({@link dev.ballast.registry.ChangeLog}): jsonb keeps an object's keys shortest first,
 * so maps (the metadata) are read back sorted by key, as
 * {@link dev.ballast.registry.Metadata} holds them.
 */
@Component
class ChangeReader {

	/** Changes read per query; a longer backlog is read in several. */
	static final int BATCH = 2000;

	private final JdbcTemplate jdbc;

	private final Snapshots snapshots;

	private final ObjectMapper json;

	ChangeReader(FeedConnections connections, Snapshots snapshots, ObjectMapper json) {
		this.jdbc = new JdbcTemplate(connections.dataSource());
		this.snapshots = snapshots;
		this.json = json.rebuild()
			.addModule(new SimpleModule("sorted-maps").addAbstractTypeMapping(Map.class, TreeMap.class))
			.build();
	}

	/**
	 * A service's instances and revision, from one snapshot of the database, and the
	 * history of that revision.
	 * @throws dev.ballast.web.NotFoundException when it is not registered
	 */
	LoadedService load(String service) {
		return stamped(snapshots.load(ServiceName.of(service)));
	}

	/**
	 * Like {@link #load}; a service not registered is empty at the revision its name
	 * stands at ({@link Snapshots#loadOrNone}).
	 */
	LoadedService loadOrNone(String service) {
		return stamped(snapshots.loadOrNone(ServiceName.of(service)));
	}

	/**
	 * A loaded state with the history of its revision: that of its change-log row, or,
	 * when the log no longer holds it (pruned, or revision 0), the history the database
	 * is in now. Either way no other change can have that revision in that history: one
	 * of a later history never has a revision the database had reached when it began.
	 */
	private LoadedService stamped(InstanceList state) {
		Long history = jdbc.queryForObject(
				"""
						SELECT coalesce((SELECT history FROM change_log WHERE service = ? AND revision = ?), ballast_history())""",
				Long.class, state.service(), state.revision());
		return new LoadedService(state, new Position(state.revision(), history));
	}

	/**
	 * The position of each named service that exists, or that was removed (its last
	 * revision): a removal whose notification was lost is read at the next catch-up. Its
	 * history is {@link Position#UNKNOWN} when the log no longer holds that revision.
	 */
	Map<String, Position> positions(List<String> services) {
		Map<String, Position> positions = new HashMap<>();
		ServiceStore.heads(jdbc, services)
			.forEach((service, head) -> positions.put(service, new Position(head.revision(), head.history())));
		return positions;
	}

	/**
	 * The history the log holds {@code revision} of {@code service} in, or
	 * {@link Position#UNKNOWN} when it holds no such change (lost in a failover, or
	 * pruned).
	 */
	long history(String service, long revision) {
		List<Long> found = jdbc.queryForList("SELECT history FROM change_log WHERE service = ? AND revision = ?",
				Long.class, service, revision);
		return found.isEmpty() ? Position.UNKNOWN : found.getFirst();
	}

	/**
	 * Up to {@link #BATCH} changes after the given revisions, in revision order per
	 * service. A change committed after a later one of the same service cannot exist:
	 * writers of a service hold its row lock until they commit.
	 */
	List<Change> after(Map<String, Long> positions) {
		String[] services = positions.keySet().toArray(String[]::new);
		Long[] revisions = new Long[services.length];
		for (int i = 0; i < services.length; i++) {
			revisions[i] = positions.get(services[i]);
		}
		return jdbc.query(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					SELECT c.service, c.revision, c.history, c.kind, c.instance_id, c.payload::text
					  FROM unnest(?::text[], ?::bigint[]) AS k(service, after)
					  JOIN change_log c ON c.service = k.service AND c.revision > k.after
					 ORDER BY c.service, c.revision
					 LIMIT %d""".formatted(BATCH));
			Array serviceArray = connection.createArrayOf("text", services);
			Array revisionArray = connection.createArrayOf("bigint", revisions);
			statement.setArray(1, serviceArray);
			statement.setArray(2, revisionArray);
			return statement;
		}, (rs, row) -> change(rs));
	}

	/**
	 * The changes of one service in {@code [from, upTo]}, as far as the log holds them:
	 * the first, if held, tells in which history the log holds {@code from}.
	 */
	List<Change> from(String service, long from, long upTo) {
		return jdbc.query("""
				SELECT service, revision, history, kind, instance_id, payload::text
				  FROM change_log
				 WHERE service = ? AND revision >= ? AND revision <= ?
				 ORDER BY revision""", (rs, row) -> change(rs), service, from, upTo);
	}

	/**
	 * The locality policy in a settings change's payload: only that field is read, so
	 * that payloads written by earlier versions, without it, still read as off.
	 */
	private LocalitySetting locality(String settingsPayload) {
		JsonNode locality = json.readTree(settingsPayload).get("locality");
		return locality == null || locality.isNull() ? null : json.treeToValue(locality, LocalitySetting.class);
	}

	private Change change(ResultSet rs) throws SQLException {
		String service = rs.getString(1);
		Position revision = new Position(rs.getLong(2), rs.getLong(3));
		LoggedChange.Kind kind = LoggedChange.Kind.valueOf(rs.getString(4));
		String instanceId = rs.getString(5);
		String payload = rs.getString(6);
		return switch (kind) {
			case UPSERT -> {
				InstanceView instance = json.readValue(payload, InstanceView.class);
				yield new Change(service, revision, kind, instanceId, instance, json.writeValueAsString(instance));
			}
			case REMOVE -> new Change(service, revision, kind, instanceId, null,
					json.writeValueAsString(json.readValue(payload, ChangeLog.Removal.class)));
			case SERVICE -> new Change(service, revision, kind, null, null, null, locality(payload));
			case DELETE -> new Change(service, revision, kind, null, null,
					json.writeValueAsString(json.readValue(payload, ChangeLog.Deletion.class)));
		};
	}

}
