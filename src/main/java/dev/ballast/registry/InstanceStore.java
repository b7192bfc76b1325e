package dev.ballast.registry;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.ballast.database.AdvisoryLock;
import dev.ballast.database.CommitBatch;
import dev.ballast.weight.Weight;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The {@code instance} table. */
@Repository
public class InstanceStore {

	private static final String COLUMNS = "service, id, address, port, zone, weight, effective_weight, nominal_weight, mode, mode_reason, mode_until, unconfirmed_subscribers, health, ejected, critical_reason, "
			+ "metadata::text AS metadata, tags, lease_ttl_seconds, last_renewed_at, revision";

	private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() {
	};

	/**
	 * What an upsert of an instance row replaces when the row exists: every column but
	 * its key and its first registration.
	 */
	private static final String REPLACE = """
			ON CONFLICT (service, id) DO UPDATE SET
			       address = EXCLUDED.address, port = EXCLUDED.port, zone = EXCLUDED.zone,
			       weight = EXCLUDED.weight, effective_weight = EXCLUDED.effective_weight,
			       nominal_weight = EXCLUDED.nominal_weight,
			       mode = EXCLUDED.mode, mode_reason = EXCLUDED.mode_reason, mode_until = EXCLUDED.mode_until,
			       unconfirmed_subscribers = EXCLUDED.unconfirmed_subscribers,
			       health = EXCLUDED.health, ejected = EXCLUDED.ejected, critical_reason = EXCLUDED.critical_reason,
			       metadata = EXCLUDED.metadata, tags = EXCLUDED.tags,
			       lease_ttl_seconds = EXCLUDED.lease_ttl_seconds, last_renewed_at = EXCLUDED.last_renewed_at,
			       revision = EXCLUDED.revision""";

	/** A group's instances removed ({@link WriteBehind}). */
	private static final CommitBatch.Rows DELETES = new CommitBatch.Rows(1, """
			DELETE FROM instance USING unnest(?::text[], ?::text[]) AS r(service, id)
			 WHERE instance.service = r.service AND instance.id = r.id""", "text", "text");

	/**
	 * A group's instances stored, each once in its last state ({@link WriteBehind}); a
	 * new one is registered at its first renewal.
	 */
	private static final CommitBatch.Rows UPSERTS = new CommitBatch.Rows(2,
			"""
					INSERT INTO instance (service, id, address, port, zone, weight, effective_weight, nominal_weight, mode,
					                      mode_reason, mode_until, unconfirmed_subscribers, health, ejected, critical_reason,
					                      metadata, tags, lease_ttl_seconds, last_renewed_at, registered_at, revision)
					SELECT service, id, address, port, zone, weight, effective_weight, nominal_weight, mode,
					       mode_reason, mode_until::timestamptz, unconfirmed::text[], health, ejected, critical_reason,
					       metadata::jsonb, tags::text[], lease_ttl_seconds, renewed::timestamptz, renewed::timestamptz, revision
					  FROM unnest(?::text[], ?::text[], ?::text[], ?::int4[], ?::text[], ?::int4[], ?::int4[], ?::int4[],
					              ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bool[], ?::text[], ?::text[],
					              ?::text[], ?::int4[], ?::text[], ?::int8[])
					       AS r(service, id, address, port, zone, weight, effective_weight, nominal_weight, mode,
					            mode_reason, mode_until, unconfirmed, health, ejected, critical_reason, metadata, tags,
					            lease_ttl_seconds, renewed, revision)
					"""
					+ REPLACE,
			"text", "text", "text", "int4", "text", "int4", "int4", "int4", "text", "text", "text", "text", "text",
			"bool", "text", "text", "text", "int4", "text", "int8");

	/**
	 * A group's first exchange: its transaction's statements are planned once per
	 * connection (a generic plan), then its services and named instances are locked.
	 * PostgreSQL would otherwise plan the group's statements again at every execution
	 * (custom plans: a plan for arrays of known length looks cheaper than the generic
	 * one), which was a fifth of its CPU per group; their shape does not change with the
	 * number of rows, and every lookup in them is by key. {@code SET LOCAL} ends with the
	 * transaction: the connection goes back to the pool planning as before.
	 */
	private static final String LOCK_GROUP = "SET LOCAL plan_cache_mode = force_generic_plan;\n"
			+ locking("name = ANY(?::text[]) ORDER BY name COLLATE \"C\"", "id = ANY(?::text[])");

	private final JdbcClient jdbc;

	private final JdbcTemplate template;

	private final ObjectMapper json;

	private final CommitBatch batch;

	InstanceStore(JdbcClient jdbc, JdbcTemplate template, ObjectMapper json, CommitBatch batch) {
		this.jdbc = jdbc;
		this.template = template;
		this.json = json;
		this.batch = batch;
	}

	public Optional<Instance> find(ServiceName service, InstanceId id) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM instance WHERE service = ? AND id = ?")
			.params(service.value(), id.value())
			.query(this::instance)
			.optional();
	}

	/**
	 * Takes the id's lock until the transaction ends
	 * ({@link AdvisoryLock#takeForInstanceId}).
	 */
	void lockId(InstanceId id) {
		AdvisoryLock.takeForInstanceId(jdbc, id.value());
	}

	/** The services in which an instance with this id is registered, sorted by name. */
	public List<ServiceName> servicesHolding(InstanceId id) {
		return jdbc.sql("SELECT service FROM instance WHERE id = ? ORDER BY service")
			.param(id.value())
			.query((rs, row) -> ServiceName.of(rs.getString(1)))
			.list();
	}

	/** Locks the instance row; the caller already holds the service lock. */
	Optional<Instance> lock(ServiceName service, InstanceId id) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM instance WHERE service = ? AND id = ? FOR UPDATE")
			.params(service.value(), id.value())
			.query(this::instance)
			.optional();
	}

	/**
	 * Locks a service's row and then one of its instances' rows (the order every writer
	 * takes them in: the service's is locked as the first part of the statement is read,
	 * before the instance's is looked up), in one statement.
	 * @return empty when the service is not registered
	 */
	Optional<ServiceWithInstance> lockWithService(ServiceName service, InstanceId id) {
		return jdbc.sql(locking("name = ?", "id = ?"))
			.params(service.value(), id.value())
			.query((rs, row) -> new ServiceWithInstance(ServiceStore.settings(rs, "s_"),
					rs.getString("id") == null ? Optional.empty() : Optional.of(instance(rs, row))))
			.optional();
	}

	/**
	 * Locks the services of a group's writes in name order, each with the instances the
	 * writes name, in one statement (each service's row before its instances', the order
	 * every writer takes them in; the order of names is the committer's, so that groups
	 * on several nodes cannot deadlock), and keeps what it read in {@code rows}: the
	 * services that are registered, and for each of them whether each named instance is.
	 * The same exchange has the transaction plan its statements generically
	 * ({@link #LOCK_GROUP}).
	 */
	void lockGroup(List<WriteBehind.Target> targets, WriteBehind.Rows rows) {
		String[] names = targets.stream().map(target -> target.service().value()).distinct().toArray(String[]::new);
		String[] ids = targets.stream()
			.filter(target -> target.id() != null)
			.map(target -> target.id().value())
			.distinct()
			.toArray(String[]::new);
		template.execute((ConnectionCallback<Void>) connection -> {
			try (PreparedStatement statement = connection.prepareStatement(LOCK_GROUP)) {
				statement.setArray(1, connection.createArrayOf("text", names));
				statement.setArray(2, connection.createArrayOf("text", ids));
				statement.execute();
				// The first result is the SET's; the second, the locked rows.
				statement.getMoreResults();
				try (ResultSet rs = statement.getResultSet()) {
					while (rs.next()) {
						ServiceSettings settings = ServiceStore.settings(rs, "s_");
						rows.locked(settings);
						if (rs.getString("id") != null) {
							Instance instance = instance(rs, 0);
							rows.locked(instance.service(), instance.id(), instance);
						}
					}
				}
			}
			return null;
		});
		for (WriteBehind.Target target : targets) {
			if (target.id() != null && rows.service(target.service()) != null
					&& rows.instance(target.service(), target.id()) == null) {
				rows.locked(target.service(), target.id(), null);
			}
		}
	}

	/** Appends a group's stored instance to the transaction's {@link CommitBatch}. */
	void appendUpsert(Instance instance) {
		Optional<ModeDetail> detail = Optional.ofNullable(instance.detail());
		batch.append(UPSERTS, instance.service().value(), instance.id().value(), instance.address(),
				instance.port().value(), instance.zone(), instance.weight().value(), instance.effectiveWeight().value(),
				instance.nominalWeight().value(), instance.mode().name(), detail.map(ModeDetail::reason).orElse(null),
				detail.map(ModeDetail::until).map(Instant::toString).orElse(null),
				waitingFor(detail).map(CommitBatch::arrayLiteral).orElse(null), instance.health().name(),
				instance.ejected(), reason(instance), json.writeValueAsString(instance.metadata().entries()),
				CommitBatch.arrayLiteral(instance.tags().values()), instance.leaseTtl().seconds(),
				instance.lastRenewedAt().toString(), instance.revision());
	}

	/** Appends a group's removed instance to the transaction's {@link CommitBatch}. */
	void appendDelete(ServiceName service, InstanceId id) {
		batch.append(DELETES, service.value(), id.value());
	}

	/** A locked service and one of its instances, locked too when it exists. */
	record ServiceWithInstance(ServiceSettings settings, Optional<Instance> instance) {
	}

	/** Locks every instance of a service; the caller already holds the service lock. */
	List<Instance> lockAll(ServiceName service) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM instance WHERE service = ? ORDER BY id FOR UPDATE")
			.param(service.value())
			.query(this::instance)
			.list();
	}

	public List<Instance> list(ServiceName service) {
		return jdbc.sql("SELECT " + COLUMNS + " FROM instance WHERE service = ? ORDER BY id")
			.param(service.value())
			.query(this::instance)
			.list();
	}

	/**
	 * Hands out the service's next revision and stores the instance under it, in one
	 * statement: inserts or replaces it; a new one is registered at its first renewal.
	 * The caller holds the service's lock.
	 * @return the revision it is stored at
	 */
	long upsertAtNextRevision(Instance instance) {
		Optional<ModeDetail> detail = Optional.ofNullable(instance.detail());
		return jdbc
			.sql("WITH next AS (" + ServiceStore.NEXT_REVISION + ")\n"
					+ """
							INSERT INTO instance (service, id, address, port, zone, weight, effective_weight, nominal_weight, mode,
							                      mode_reason, mode_until, unconfirmed_subscribers, health, ejected, critical_reason,
							                      metadata, tags, lease_ttl_seconds, last_renewed_at, registered_at, revision)
							VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?::jsonb, ?::text[], ?, ?, ?,
							        (SELECT revision FROM next))
							"""
					+ REPLACE + " RETURNING revision")
			.params(instance.service().value(), instance.service().value(), instance.id().value(), instance.address(),
					instance.port().value(), instance.zone(), instance.weight().value(),
					instance.effectiveWeight().value(), instance.nominalWeight().value(), instance.mode().name(),
					detail.map(ModeDetail::reason).orElse(null),
					detail.map(ModeDetail::until).map(Timestamp::from).orElse(null),
					waitingFor(detail).map(InstanceStore::textArray).orElse(null), instance.health().name(),
					instance.ejected(), reason(instance), json.writeValueAsString(instance.metadata().entries()),
					instance.tags().values().toArray(String[]::new), instance.leaseTtl().seconds(),
					Timestamp.from(instance.lastRenewedAt()), Timestamp.from(instance.lastRenewedAt()))
			.query(Long.class)
			.single();
	}

	/**
	 * Renews a lease without touching anything clients watch, so no revision is spent.
	 */
	void renew(ServiceName service, InstanceId id, Instant at) {
		jdbc.sql("UPDATE instance SET last_renewed_at = ? WHERE service = ? AND id = ?")
			.params(Timestamp.from(at), service.value(), id.value())
			.update();
	}

	/**
	 * Deletes an instance and hands out the service's next revision for its removal, in
	 * one statement. The caller holds the service's lock.
	 * @return the revision of the removal
	 */
	long deleteAtNextRevision(ServiceName service, InstanceId id) {
		return jdbc
			.sql("WITH gone AS (DELETE FROM instance WHERE service = ? AND id = ?)\n" + ServiceStore.NEXT_REVISION)
			.params(service.value(), id.value(), service.value())
			.query(Long.class)
			.single();
	}

	private Instance instance(ResultSet rs, int row) throws SQLException {
		return new Instance(ServiceName.of(rs.getString("service")), InstanceId.of(rs.getString("id")),
				rs.getString("address"), Port.of(rs.getInt("port")), rs.getString("zone"),
				Weight.of(rs.getInt("weight")), Weight.of(rs.getInt("effective_weight")),
				Weight.of(rs.getInt("nominal_weight")), Mode.valueOf(rs.getString("mode")), detail(rs),
				Health.valueOf(rs.getString("health")), rs.getBoolean("ejected"),
				Optional.ofNullable(rs.getString("critical_reason")).map(CriticalReason::spelled).orElse(null),
				new Metadata(json.readValue(rs.getString("metadata"), STRING_MAP)),
				new Tags(List.of((String[]) rs.getArray("tags").getArray())),
				LeaseTtl.ofSeconds(rs.getInt("lease_ttl_seconds")), rs.getTimestamp("last_renewed_at").toInstant(),
				rs.getLong("revision"));
	}

	private static String reason(Instance instance) {
		return instance.criticalReason() == null ? null : instance.criticalReason().spelled();
	}

	private static ModeDetail detail(ResultSet rs) throws SQLException {
		String reason = rs.getString("mode_reason");
		Timestamp until = rs.getTimestamp("mode_until");
		Array unconfirmed = rs.getArray("unconfirmed_subscribers");
		if (reason == null && until == null && unconfirmed == null) {
			return null;
		}
		return new ModeDetail(reason, until == null ? null : until.toInstant(),
				unconfirmed == null ? List.of() : List.of((String[]) unconfirmed.getArray()));
	}

	/**
	 * A PostgreSQL array literal of subscriber names (their pattern admits no quote or
	 * backslash; quoting keeps a subscriber named NULL a name).
	 */
	/**
	 * Locks the services {@code services} picks and, of each, the instances {@code ids}
	 * picks: a row per service, its columns prefixed {@code s_}, joined to each picked
	 * instance's columns (null when it picks none).
	 */
	private static String locking(String services, String ids) {
		return """
				WITH s AS MATERIALIZED (
				  SELECT name, weight_policy, default_weight, lease_ttl_seconds, max_unroutable_percent,
				         max_unroutable_count, max_ejection_percent, locality_mode, locality_max_cross_zone_percent, revision
				    FROM service WHERE %s FOR UPDATE)
				SELECT s.name AS s_name, s.weight_policy AS s_weight_policy, s.default_weight AS s_default_weight,
				       s.lease_ttl_seconds AS s_lease_ttl_seconds,
				       s.max_unroutable_percent AS s_max_unroutable_percent, s.max_unroutable_count AS s_max_unroutable_count,
				       s.max_ejection_percent AS s_max_ejection_percent, s.locality_mode AS s_locality_mode,
				       s.locality_max_cross_zone_percent AS s_locality_max_cross_zone_percent, s.revision AS s_revision, i.*
				  FROM s LEFT JOIN LATERAL (
				         SELECT %s FROM instance WHERE service = s.name AND %s FOR UPDATE) AS i ON true"""
			.formatted(services, COLUMNS, ids);
	}

	/** The subscribers a drain still waits for; empty (stored as null) when none. */
	private static Optional<List<String>> waitingFor(Optional<ModeDetail> detail) {
		return detail.map(ModeDetail::unconfirmedSubscribers).filter(names -> !names.isEmpty());
	}

	private static String textArray(List<String> names) {
		return names.stream().map(name -> "\"" + name + "\"").collect(Collectors.joining(",", "{", "}"));
	}

}
