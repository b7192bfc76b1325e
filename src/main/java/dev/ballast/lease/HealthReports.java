package dev.ballast.lease;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Committed;
import dev.ballast.registry.CriticalReason;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Health;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.Mode;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.weight.EjectionCap;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Health reported by an instance itself rather than read from its lease, for entrances
 * whose clients send check results (Consul's TTL checks). A passing report is a
 * heartbeat. A failing report renews the lease (the instance is alive and says so) and
 * turns the instance CRITICAL as an expired lease would: it is ejected within the
 * service's ejection cap ({@link EjectionCap}, {@code maxEjectionPercent}), and held
 * routable beyond it, so that failing checks can no more empty a service than expiring
 * leases can. Its next passing report brings it back with its weight.
 */
@Component
public class HealthReports {

	private final Heartbeats heartbeats;

	private final WritePath path;

	private final Clock clock;

	HealthReports(Heartbeats heartbeats, WritePath path, Clock clock) {
		this.heartbeats = heartbeats;
		this.path = path;
		this.clock = clock;
	}

	/**
	 * The instance reports itself healthy: a heartbeat.
	 * @throws dev.ballast.web.NotFoundException when it is not registered
	 */
	public Report pass(ServiceName service, InstanceId id) {
		HeartbeatView beat = heartbeats.beat(service, id);
		return new Report(beat.mode(), beat.effectiveWeight(), Health.PASSING, false);
	}

	/**
	 * The instance reports itself failing: its lease is renewed and it turns CRITICAL,
	 * ejected if the ejection cap allows, held routable otherwise. A report that changes
	 * nothing spends no revision.
	 * @throws dev.ballast.web.NotFoundException when it is not registered
	 */
	@Transactional
	public Report fail(ServiceName service, InstanceId id) {
		return fail(service, id, false, null);
	}

	/**
	 * A check the registry runs turned critical: as
	 * {@link #fail(ServiceName, InstanceId)}, audited as the registry's own act, and
	 * renewing the lease only when the checks keep it (an instance with a lease of its
	 * own keeps it to itself).
	 * @param output what the probe found, for the audit row
	 * @throws dev.ballast.web.NotFoundException when it is not registered
	 */
	@Transactional
	public Report probeFailed(ServiceName service, InstanceId id, boolean checksKeepLease, String output) {
		return fail(service, id, !checksKeepLease, output);
	}

	private Report fail(ServiceName service, InstanceId id, boolean ownLease, String probeOutput) {
		Instant now = clock.instant();
		LockedService locked = path.lock(service);
		Instance target = locked.instance(id);
		Instance after = failing(locked, ownLease ? target.renewed(target.lastRenewedAt()) : target.renewed(now),
				probeOutput == null ? CriticalReason.REPORTED_CRITICAL : CriticalReason.CHECK_FAILING);
		Committed committed = locked.changes(Guard.none()).put(target, after).commit(Audit.entries((done, trail) -> {
			// Audited only when health, ejection or the reason changed: a failing
			// instance reports again and again.
			Instance stored = done.stored(id);
			if (target.health() != Health.CRITICAL || target.ejected() != stored.ejected()
					|| target.criticalReason() != stored.criticalReason()) {
				AuditEntry entry = AuditEntry
					.of(probeOutput == null ? Action.INSTANCE_CHECK_FAIL : Action.INSTANCE_PROBE_FAIL, service.value(),
							id.value(), InstanceView.of(target), InstanceView.of(stored))
					.withDetail("ejected", stored.ejected());
				if (probeOutput == null) {
					trail.caller(entry);
				}
				else {
					trail.system(entry.withDetail("output", probeOutput));
				}
			}
		}));
		Instance stored = committed.stored(id);
		return new Report(stored.mode(), stored.effectiveWeight(), stored.health(), stored.ejected());
	}

	/**
	 * The checks the registry runs on an instance with a lease of its own pass again: it
	 * is PASSING again, with its weight, if its lease is current. An expired lease keeps
	 * it CRITICAL until the instance renews it, and the lease is then its reason. Its
	 * lease is not renewed.
	 */
	@Transactional
	public void probesPass(ServiceName service, InstanceId id) {
		Instant now = clock.instant();
		path.lockIfPresent(service).flatMap(locked -> locked.find(id).map(current -> {
			if (current.health() != Health.CRITICAL) {
				return current;
			}
			boolean leaseCurrent = current.leaseExpiresAt().isAfter(now);
			if (!leaseCurrent && current.criticalReason() == CriticalReason.LEASE_EXPIRED) {
				return current;
			}
			Committed committed = locked.changes(Guard.none())
				.put(current,
						leaseCurrent ? current.renewed(current.lastRenewedAt())
								: current.critical(CriticalReason.LEASE_EXPIRED, current.ejected()))
				.commit(Audit.system(done -> AuditEntry.of(Action.INSTANCE_PROBE_PASS, service.value(), id.value(),
						InstanceView.of(current), InstanceView.of(done.stored(id)))));
			return committed.stored(id);
		}));
	}

	/**
	 * A check the registry runs has been critical for its {@code deregisterAfter}: the
	 * instance is removed, as the registry's own act ({@code instance.remove} by the
	 * system), if the ejection cap has ejected it. An instance the cap holds routable
	 * ({@code CRITICAL} but not ejected) is not removed: removing it would take away the
	 * capacity the cap keeps in rotation, and a service whose every check fails would be
	 * emptied one removal at a time. Once the cap lets it be ejected, it is removed as
	 * any other.
	 * @param reason why, for the audit entry
	 * @return whether it was removed (not when held, passing again, or gone)
	 */
	@Transactional
	public boolean removeCritical(ServiceName service, InstanceId id, String reason) {
		Optional<LockedService> locked = path.lockIfPresent(service);
		Optional<Instance> ejected = locked.flatMap(present -> present.find(id))
			.filter(instance -> instance.health() == Health.CRITICAL && instance.ejected());
		if (ejected.isEmpty()) {
			return false;
		}
		locked.get()
			.changes(Guard.none())
			.remove(ejected.get())
			.commit(Audit.system(done -> AuditEntry
				.of(Action.INSTANCE_REMOVE, service.value(), id.value(), InstanceView.of(ejected.get()), null)
				.withDetail("reason", reason)));
		return true;
	}

	/**
	 * {@code renewed} (the instance as it reports, just renewed: passing, not ejected)
	 * turned CRITICAL by its failing report: ejected if it was already, or if the
	 * ejection cap allows; held routable otherwise. Also what a registration that reports
	 * itself critical stores ({@link dev.ballast.registry.ReportedHealth}), so that it
	 * appears once, already critical.
	 * @param locked its service, locked, as it stands before the report
	 */
	public Instance failing(LockedService locked, Instance renewed) {
		return failing(locked, renewed, CriticalReason.REPORTED_CRITICAL);
	}

	private static Instance failing(LockedService locked, Instance renewed, CriticalReason reason) {
		boolean ejected = locked.find(renewed.id()).map(Instance::ejected).orElse(false);
		return renewed.critical(reason, ejected || ejectable(locked, renewed));
	}

	private static boolean ejectable(LockedService locked, Instance target) {
		Instant now = target.lastRenewedAt();
		// The target as it reports, in place of what is stored (a new one is not yet).
		Stream<Instance> others = locked.instances().stream().filter(instance -> !instance.id().equals(target.id()));
		List<EjectionCap.Member> members = Stream.concat(others, Stream.of(target))
			.map(instance -> new EjectionCap.Member(instance.id().value(), instance.nominalWeight().value(),
					instance.serving(), instance.routable(), instance == target ? now : instance.leaseExpiresAt(),
					instance == target || instance.health() == Health.CRITICAL, instance.ejected()))
			.toList();
		// Only this instance is decided here; the sweep decides the others as before.
		return EjectionCap.decide(members, locked.base(), locked.settings().maxEjectionPercent())
			.eject()
			.contains(target.id().value());
	}

	/**
	 * What the instance is after a report.
	 *
	 * @param mode its mode
	 * @param effectiveWeight the weight balancers use
	 * @param health PASSING or CRITICAL
	 * @param ejected whether the failing report took it out of rotation
	 */
	public record Report(Mode mode, Weight effectiveWeight, Health health, boolean ejected) {
	}

}
