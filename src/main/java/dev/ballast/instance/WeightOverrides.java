package dev.ballast.instance;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.database.AdvisoryLock;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.weight.Weight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Weight edits with an end time. At {@code until} the registry puts the weight back to
 * what it was before the edit, with a change event like any edit; one node at a time does
 * it.
 */
@Component
public class WeightOverrides {

	private static final Logger log = LoggerFactory.getLogger(WeightOverrides.class);

	private final JdbcClient jdbc;

	private final WritePath path;

	private final Clock clock;

	WeightOverrides(JdbcClient jdbc, WritePath path, Clock clock) {
		this.jdbc = jdbc;
		this.path = path;
		this.clock = clock;
	}

	/**
	 * Records that the weight an edit replaced comes back at {@code until}; an override
	 * already pending keeps the weight from before it.
	 */
	void put(ServiceName service, InstanceId id, Weight before, Instant until) {
		jdbc.sql("""
				INSERT INTO weight_override (service, instance_id, revert_to, until) VALUES (?, ?, ?, ?)
				ON CONFLICT (service, instance_id) DO UPDATE SET until = EXCLUDED.until""")
			.params(service.value(), id.value(), before.value(), Timestamp.from(until))
			.update();
	}

	/** A weight edit without an end makes the new weight the lasting one. */
	void clear(ServiceName service, InstanceId id) {
		jdbc.sql("DELETE FROM weight_override WHERE service = ? AND instance_id = ?")
			.params(service.value(), id.value())
			.update();
	}

	/** Reverts every override whose time has come; returns how many. */
	@Transactional
	public int revertDue() {
		if (!AdvisoryLock.WEIGHT_OVERRIDES.tryTake(jdbc)) {
			return 0;
		}
		Instant now = clock.instant();
		List<Due> due = jdbc.sql("""
				SELECT service, instance_id, revert_to FROM weight_override WHERE until <= ?
				 ORDER BY service, instance_id LIMIT 200 FOR UPDATE SKIP LOCKED""")
			.param(Timestamp.from(now))
			.query((rs, row) -> new Due(ServiceName.of(rs.getString(1)), InstanceId.of(rs.getString(2)),
					Weight.of(rs.getInt(3))))
			.list();
		for (Due override : due) {
			path.lockIfPresent(override.service())
				.ifPresent(
						locked -> locked.find(override.id()).ifPresent(instance -> revert(locked, instance, override)));
			clear(override.service(), override.id());
		}
		return due.size();
	}

	private void revert(LockedService locked, Instance instance, Due override) {
		locked.changes(Guard.none())
			.put(instance, instance.withWeight(override.revertTo()))
			.commit(Audit.system(committed -> AuditEntry.of(Action.INSTANCE_WEIGHT_REVERT, override.service().value(),
					override.id().value(), InstanceView.of(instance),
					InstanceView.of(committed.stored(instance.id())))));
		log.info("Weight override of {}/{} ended: weight back to {}", override.service(), override.id(),
				override.revertTo().value());
	}

	private record Due(ServiceName service, InstanceId id, Weight revertTo) {
	}

}
