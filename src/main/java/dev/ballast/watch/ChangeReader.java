package dev.ballast.watch;

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

	private final ChangeLog log;

	ChangeReader(FeedConnections connections, Snapshots snapshots, ObjectMapper json, ChangeLog log) {
		this.jdbc = new JdbcTemplate(connections.dataSource());
		this.snapshots = snapshots;
		this.log = log;
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
		return new LoadedService(state,
				new Position(state.revision(), log.historyOrNow(jdbc, state.service(), state.revision())));
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
		return log.history(jdbc, service, revision);
	}

	/**
	 * Up to {@link #BATCH} changes after the given revisions, in revision order per
	 * service. A change committed after a later one of the same service cannot exist:
	 * writers of a service hold its row lock until they commit.
	 */
	List<Change> after(Map<String, Long> positions) {
		return log.after(jdbc, positions, BATCH).stream().map(this::change).toList();
	}

	/**
	 * The changes of one service in {@code [from, upTo]}, as far as the log holds them:
	 * the first, if held, tells in which history the log holds {@code from}.
	 */
	List<Change> from(String service, long from, long upTo) {
		return log.between(jdbc, service, from, upTo).stream().map(this::change).toList();
	}

	/**
	 * The locality policy in a settings change's payload: only that field is read, so
	 * that payloads written by earlier versions, without it, still read as off.
	 */
	private LocalitySetting locality(String settingsPayload) {
		JsonNode locality = json.readTree(settingsPayload).get("locality");
		return locality == null || locality.isNull() ? null : json.treeToValue(locality, LocalitySetting.class);
	}

	private Change change(ChangeLog.Row row) {
		String service = row.service();
		Position revision = new Position(row.revision(), row.history());
		LoggedChange.Kind kind = row.kind();
		String instanceId = row.instanceId();
		String payload = row.payload();
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
