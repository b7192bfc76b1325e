package dev.ballast.registry;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.ballast.database.CommitBatch;
import dev.ballast.weight.LocalityPolicy;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code service} table: settings and the per-service revision counter. */
@Repository
public class ServiceStore {

	private static final String COLUMNS = "name, weight_policy, default_weight, lease_ttl_seconds, "
			+ "max_unroutable_percent, max_unroutable_count, max_ejection_percent, locality_mode, "
			+ "locality_max_cross_zone_percent, revision";

	/**
	 * The instances {@link Instance#heldOut()} counts in the guard's budget, as SQL over
	 * the instance table's columns (unqualified: no other table joined here has them).
	 */
	private static final String HELD_OUT = "(ejected OR mode IN ('DRAINING', 'DRAINED', 'MAINTENANCE') "
			+ "OR (weight = 0 AND nominal_weight > 0))";

	/**
	 * What an instance serves in the guard's budget ({@link Instance#serving()}), as SQL.
	 */
	private static final String SERVING = "CASE WHEN " + HELD_OUT
			+ " THEN 0 ELSE least(effective_weight, nominal_weight) END";

	/** Each service's last revision handed out in a group's transaction. */
	private static final CommitBatch.Rows REVISIONS = new CommitBatch.Rows(3, """
			UPDATE service SET revision = r.revision, updated_at = now()
			  FROM unnest(?::text[], ?::int8[]) AS r(name, revision)
			 WHERE service.name = r.name""", "text", "int8");

	/**
	 * A service's guard base, as SQL beside the sums of its instances: its capacity, or
	 * the highest live service-wide peak above it ({@link CapacityPeaks}). Takes the
	 * instant as its one parameter.
	 */
	private static final String BASE = """
			greatest(coalesce(sum(i.nominal_weight), 0),
			         (SELECT coalesce(max(p.capacity), 0) FROM capacity_peak p
			           WHERE p.service = %s AND p.scope = 'service' AND p.until > ?))""";

	private final JdbcClient jdbc;

	private final CommitBatch batch;

	private final Clock clock;

	/**
	 * Registered at start by the module that runs releases ({@link #readReleasesWith}).
	 */
	private volatile ReleasesUnderWay releases;

	ServiceStore(JdbcClient jdbc, CommitBatch batch, Clock clock) {
		this.jdbc = jdbc;
		this.batch = batch;
		this.clock = clock;
	}

	/**
	 * The release module's read of the releases under way, which the service list shows;
	 * one at most.
	 */
	public void readReleasesWith(ReleasesUnderWay read) {
		if (releases != null) {
			throw new IllegalStateException("the releases under way are read already by " + releases);
		}
		releases = read;
	}

	public Optional<ServiceSettings> find(ServiceName name) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM service WHERE name = ?")
			.param(name.value())
			.query(ServiceStore::settings)
			.optional();
	}

	/**
	 * Locks the service row until the transaction ends. Every write to a service takes
	 * this lock first, so revisions are handed out and committed in order.
	 */
	Optional<ServiceSettings> lock(ServiceName name) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM service WHERE name = ? FOR UPDATE")
			.param(name.value())
			.query(ServiceStore::settings)
			.optional();
	}

	/**
	 * Like {@link #lock}, creating the service with default settings if it is new: one
	 * statement for a service that exists, as nearly every registration's does.
	 */
	ServiceSettings lockOrCreate(ServiceName name) {
		return lock(name).orElseGet(() -> {
			// A name removed before continues from its last revision (removed_service).
			jdbc.sql("""
					INSERT INTO service (name, revision)
					VALUES (?, coalesce((SELECT revision FROM removed_service WHERE name = ?), 0))
					ON CONFLICT (name) DO NOTHING""").params(name.value(), name.value()).update();
			return lock(name).orElseThrow();
		});
	}

	/**
	 * Deletes a locked service's row, and what hangs on it, keeping {@code revision} as
	 * the name's last.
	 */
	void remove(ServiceName name, long revision) {
		jdbc.sql("""
				INSERT INTO removed_service (name, revision, removed_at) VALUES (?, ?, ?)
				ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, removed_at = excluded.removed_at""")
			.params(name.value(), revision, Timestamp.from(clock.instant()))
			.update();
		jdbc.sql("DELETE FROM service WHERE name = ?").param(name.value()).update();
	}

	/**
	 * The revision a service that is not registered stands at: the last one of its name
	 * if it was removed, else 0.
	 */
	public long unregisteredRevision(ServiceName name) {
		return jdbc.sql("SELECT revision FROM removed_service WHERE name = ?")
			.param(name.value())
			.query(Long.class)
			.optional()
			.orElse(0L);
	}

	/** A registered service's revision; empty when it is not registered. */
	public Optional<Long> revision(ServiceName name) {
		return jdbc.sql("SELECT revision FROM service WHERE name = ?").param(name.value()).query(Long.class).optional();
	}

	/**
	 * Of {@code names}, those registered, each held against removal until the transaction
	 * ends: for rows of other tables that reference their service, which a removal
	 * deletes with it. Held in name order, as a flush of such rows in name order holds
	 * them by the reference anyway.
	 */
	public Set<String> holdRegistered(String[] names) {
		return new HashSet<>(
				jdbc.sql("SELECT name FROM service WHERE name = ANY (?::text[]) ORDER BY name FOR KEY SHARE")
					.param(names)
					.query(String.class)
					.list());
	}

	/**
	 * Where each of {@code names} stands, read on {@code on} (the watch reads on
	 * connections of its own, which request traffic never exhausts): the revision of each
	 * registered service, or the last of each removed one, with the history the change
	 * log holds that revision in, or {@link ChangeLog#UNSTAMPED} when it no longer does.
	 * Names that never existed are left out.
	 */
	public static Map<String, Head> heads(JdbcTemplate on, List<String> names) {
		Map<String, Head> heads = new HashMap<>();
		on.query(connection -> {
			PreparedStatement statement = connection.prepareStatement("""
					SELECT k.name, k.revision, coalesce(c.history, -1)
					  FROM (SELECT name, revision FROM service WHERE name = ANY (?)
					        UNION ALL
					        SELECT r.name, r.revision FROM removed_service r
					         WHERE r.name = ANY (?) AND NOT EXISTS (SELECT 1 FROM service s WHERE s.name = r.name)) AS k
					  LEFT JOIN change_log c ON c.service = k.name AND c.revision = k.revision""");
			Array array = connection.createArrayOf("text", names.toArray());
			statement.setArray(1, array);
			statement.setArray(2, array);
			return statement;
		}, (ResultSet rs) -> {
			heads.put(rs.getString(1), new Head(rs.getLong(2), rs.getLong(3)));
		});
		return heads;
	}

	/**
	 * A service's last revision and the history the change log holds it in.
	 *
	 * @param revision the revision
	 * @param history its history, or {@link ChangeLog#UNSTAMPED} when the log no longer
	 * holds it
	 */
	public record Head(long revision, long history) {
	}

	/**
	 * Every removed name not registered again, with its last revision, sorted by name.
	 */
	public List<Map.Entry<String, Long>> removed() {
		return jdbc.sql("""
				SELECT r.name, r.revision FROM removed_service r
				 WHERE NOT EXISTS (SELECT 1 FROM service s WHERE s.name = r.name) ORDER BY r.name""")
			.query((rs, row) -> Map.entry(rs.getString("name"), rs.getLong("revision")))
			.list();
	}

	/**
	 * The statement that hands out a locked service's next revision (its one parameter
	 * the service's name), answering it: every revision spent by a statement is spent by
	 * this one, alone or as part of a statement that stores the change under it.
	 */
	static final String NEXT_REVISION = "UPDATE service SET revision = revision + 1, updated_at = now() WHERE name = ? "
			+ "RETURNING revision";

	/** Hands out the next revision of a locked service. */
	long nextRevision(ServiceName name) {
		return jdbc.sql(NEXT_REVISION).param(name.value()).query(Long.class).single();
	}

	/**
	 * Appends a locked service's revision to the transaction's {@link CommitBatch}
	 * ({@link WriteBehind}).
	 */
	void appendRevision(ServiceName name, long revision) {
		batch.append(REVISIONS, name.value(), revision);
	}

	void update(ServiceSettings settings) {
		jdbc.sql("""
				UPDATE service SET weight_policy = ?, default_weight = ?, lease_ttl_seconds = ?,
				       max_unroutable_percent = ?, max_unroutable_count = ?, max_ejection_percent = ?,
				       locality_mode = ?, locality_max_cross_zone_percent = ?, revision = ?,
				       updated_at = now()
				 WHERE name = ?""")
			.params(settings.weightPolicy().name(), settings.defaultWeight().value(), settings.leaseTtl().seconds(),
					settings.maxUnroutablePercent(),
					settings.maxUnroutable().percent() ? null : settings.maxUnroutable().value(),
					settings.maxEjectionPercent(),
					settings.locality() == null ? null : settings.locality().mode().name(),
					settings.locality() == null ? null : settings.locality().maxCrossZonePercent(), settings.revision(),
					settings.name().value())
			.update();
	}

	/**
	 * Every service's line. The unroutable weight is the base less what serves
	 * ({@link Instance#serving()}); the release under way is the release module's
	 * ({@link ReleasesUnderWay}), read on the same transaction: inside
	 * {@link Snapshots#read}, from the same snapshot.
	 */
	public List<ServiceSummary> summaries() {
		ReleasesUnderWay read = releases;
		Map<String, Long> underWay = read == null ? Map.of() : read.numbers();
		return jdbc.sql("""
				SELECT s.name, s.revision, s.max_unroutable_percent, s.max_unroutable_count, s.weight_policy,
				       count(i.id) AS instances,
				       count(i.id) FILTER (WHERE i.effective_weight > 0) AS routable,
				       count(i.id) FILTER (WHERE i.health = 'PASSING') AS passing,
				       count(i.id) FILTER (WHERE i.health = 'CRITICAL') AS critical,
				       count(i.id) FILTER (WHERE i.health = 'CRITICAL' AND NOT i.ejected) AS held,
				       count(i.id) FILTER (WHERE i.ejected) AS ejected,
				       count(i.id) FILTER (WHERE i.mode = 'DRAINING') AS draining,
				       count(i.id) FILTER (WHERE i.mode = 'DRAINED') AS drained,
				       count(i.id) FILTER (WHERE i.mode = 'MAINTENANCE') AS maintenance,
				       coalesce(sum(i.effective_weight), 0) AS total_effective_weight,
				       %1$s AS nominal_weight,
				       %1$s - coalesce(sum(%2$s), 0) AS unroutable_weight,
				       ARRAY(SELECT DISTINCT t.tag COLLATE "C" FROM instance t_i, unnest(t_i.tags) AS t(tag)
				              WHERE t_i.service = s.name ORDER BY 1) AS tags
				  FROM service s LEFT JOIN instance i ON i.service = s.name
				 GROUP BY s.name, s.revision, s.max_unroutable_percent, s.max_unroutable_count, s.weight_policy
				 ORDER BY s.name""".formatted(BASE.formatted("s.name"), SERVING))
			.params(Timestamp.from(clock.instant()), Timestamp.from(clock.instant()))
			.query((rs, row) -> new ServiceSummary(rs.getString("name"), rs.getInt("instances"), rs.getInt("routable"),
					rs.getInt("passing"), rs.getInt("critical"), rs.getInt("held"), rs.getInt("ejected"),
					rs.getInt("draining"), rs.getInt("drained"), rs.getInt("maintenance"),
					rs.getLong("total_effective_weight"), rs.getLong("revision"), rs.getLong("nominal_weight"),
					rs.getLong("unroutable_weight"), maxUnroutable(rs, "").toString(),
					rs.getInt("max_unroutable_percent"), WeightPolicy.valueOf(rs.getString("weight_policy")),
					List.of((String[]) rs.getArray("tags").getArray()), underWay.get(rs.getString("name"))))
			.list();
	}

	/**
	 * Every tag the instances of each service carry, once each, sorted by code point (the
	 * C collation, as Go sorts strings, whatever the database's collation); services
	 * whose instances carry none are left out. The Consul catalog's answer; the service
	 * list carries the same tags in {@link #summaries()}.
	 */
	public Map<String, List<String>> tags() {
		Map<String, List<String>> tags = new TreeMap<>();
		jdbc.sql("""
				SELECT service, array_agg(tag ORDER BY tag) AS tags
				  FROM (SELECT DISTINCT i.service, tag COLLATE "C" AS tag FROM instance i, unnest(i.tags) AS tag) AS d
				 GROUP BY service""").query(rs -> {
			tags.put(rs.getString("service"), List.of((String[]) rs.getArray("tags").getArray()));
		});
		return tags;
	}

	public ServiceCounts counts(ServiceName name) {
		return jdbc.sql("""
				SELECT count(*) AS instances,
				       count(*) FILTER (WHERE effective_weight > 0) AS routable,
				       count(*) FILTER (WHERE health = 'PASSING') AS passing,
				       count(*) FILTER (WHERE health = 'CRITICAL') AS critical,
				       coalesce(sum(nominal_weight), 0) AS nominal_weight,
				       coalesce(sum(effective_weight), 0) AS total_effective_weight,
				       count(*) FILTER (WHERE ejected) AS ejected,
				       count(*) FILTER (WHERE health = 'CRITICAL' AND NOT ejected) AS held,
				       coalesce(sum(nominal_weight) FILTER (WHERE ejected), 0) AS ejected_weight,
				       coalesce(sum(nominal_weight - %s), 0) AS unroutable_weight,
				       %s AS guard_base
				  FROM instance i WHERE service = ?""".formatted(SERVING, BASE.formatted("?")))
			.params(name.value(), Timestamp.from(clock.instant()), name.value())
			.query((rs, row) -> new ServiceCounts(rs.getInt("instances"), rs.getInt("routable"), rs.getInt("passing"),
					rs.getInt("critical"), rs.getLong("nominal_weight"), rs.getLong("total_effective_weight"),
					rs.getInt("ejected"), rs.getInt("held"), rs.getLong("ejected_weight"),
					rs.getLong("unroutable_weight"), rs.getLong("guard_base")))
			.single();
	}

	private static ServiceSettings settings(ResultSet rs, int row) throws SQLException {
		return settings(rs, "");
	}

	/** The budget: a count when {@code max_unroutable_count} is set, else the percent. */
	private static MaxUnroutable maxUnroutable(ResultSet rs, String prefix) throws SQLException {
		Integer count = rs.getObject(prefix + "max_unroutable_count", Integer.class);
		return count == null ? MaxUnroutable.percentOf(rs.getInt(prefix + "max_unroutable_percent"))
				: MaxUnroutable.count(count);
	}

	/**
	 * Settings from a row whose service columns are named with {@code prefix} (so that
	 * they can share a row with an instance's).
	 */
	static ServiceSettings settings(ResultSet rs, String prefix) throws SQLException {
		return new ServiceSettings(ServiceName.of(rs.getString(prefix + "name")),
				WeightPolicy.valueOf(rs.getString(prefix + "weight_policy")),
				Weight.of(rs.getInt(prefix + "default_weight")),
				LeaseTtl.ofSeconds(rs.getInt(prefix + "lease_ttl_seconds")), maxUnroutable(rs, prefix),
				rs.getInt(prefix + "max_unroutable_percent"), rs.getInt(prefix + "max_ejection_percent"),
				locality(rs, prefix), rs.getLong(prefix + "revision"));
	}

	/** The policy when {@code locality_mode} is set (the table keeps both or neither). */
	private static LocalityPolicy locality(ResultSet rs, String prefix) throws SQLException {
		String mode = rs.getString(prefix + "locality_mode");
		return mode == null ? null : new LocalityPolicy(LocalityPolicy.Mode.valueOf(mode),
				rs.getInt(prefix + "locality_max_cross_zone_percent"));
	}

}
