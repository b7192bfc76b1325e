package dev.ballast.watch;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.instance.InstanceList;
import dev.ballast.instance.InstanceQueries;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.LocalitySetting;
import dev.ballast.instance.ServiceName;
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
 * ({@link ChangeLog}): jsonb keeps an object's keys shortest first, so maps (the
 * metadata) are read back sorted by key, as {@link dev.ballast.instance.Metadata} holds
 * them.
 */
@Component
class ChangeReader {

	/** Changes read per query; a longer backlog is read in several. */
	static final int BATCH = 2000;

	private final JdbcTemplate jdbc;

	private final InstanceQueries queries;

	private final ObjectMapper json;

	ChangeReader(FeedConnections connections, InstanceQueries queries, ObjectMapper json) {
		this.jdbc = new JdbcTemplate(connections.dataSource());
		this.queries = queries;
		this.json = json.rebuild()
			.addModule(new SimpleModule("sorted-maps").addAbstractTypeMapping(Map.class, TreeMap.class))
			.build();
	}

	/**
	 * A service's instances and revision, from one snapshot of the database.
	 * @throws dev.ballast.web.NotFoundException when it is not registered
	 */
	InstanceList load(String service) {
		return queries.load(ServiceName.of(service));
	}

	/**
	 * Like {@link #load}; a service not registered is empty at the revision its name
	 * stands at ({@link InstanceQueries#loadOrNone}).
	 */
	InstanceList loadOrNone(String service) {
		return queries.loadOrNone(ServiceName.of(service));
	}

	/**
	 * The current revision of each named service that exists, or that was removed (its
	 * last): a removal whose notification was lost is read at the next catch-up.
	 */
	Map<String, Long> revisions(List<String> services) {
		Map<String, Long> revisions = new HashMap<>();
		jdbc.query(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					SELECT name, revision FROM service WHERE name = ANY (?)
					UNION ALL
					SELECT r.name, r.revision FROM removed_service r
					 WHERE r.name = ANY (?) AND NOT EXISTS (SELECT 1 FROM service s WHERE s.name = r.name)""");
			Array names = connection.createArrayOf("text", services.toArray());
			statement.setArray(1, names);
			statement.setArray(2, names);
			return statement;
		}, (ResultSet rs) -> {
			revisions.put(rs.getString(1), rs.getLong(2));
		});
		return revisions;
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
					SELECT c.service, c.revision, c.kind, c.instance_id, c.payload::text
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
	 * The changes of one service in {@code (after, upTo]}, as far as the log holds them.
	 */
	List<Change> between(String service, long after, long upTo) {
		return jdbc.query("""
				SELECT service, revision, kind, instance_id, payload::text
				  FROM change_log
				 WHERE service = ? AND revision > ? AND revision <= ?
				 ORDER BY revision""", (rs, row) -> change(rs), service, after, upTo);
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
		long revision = rs.getLong(2);
		Change.Kind kind = Change.Kind.valueOf(rs.getString(3));
		String instanceId = rs.getString(4);
		String payload = rs.getString(5);
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
