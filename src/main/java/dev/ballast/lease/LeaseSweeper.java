package dev.ballast.lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.database.NodeFacts;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Changes;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Health;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.Leases;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.weight.EjectionCap;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Expires leases, on one node at a time: the sweep runs in one transaction that first
 * takes a PostgreSQL advisory lock, so a second node's sweep finds it taken and does
 * nothing. Before judging, it extends leases by any time the registry was not watching
 * ({@link SweepTick}, committed on its own under that lock); it judges as of
 * {@link LeaseSettings#flushAllowance()} ago, so renewals still buffered on some node
 * count, and no later than the moment through which a node that went silent wrote its
 * renewals ({@link LeaseSettings#silentNodeGrace()}): a node cut off from the database
 * while its clients reach it answers heartbeats nobody else sees; and it ejects within
 * the {@link EjectionCap}.
 */
@Component
class LeaseSweeper {

	private static final Logger log = LoggerFactory.getLogger(LeaseSweeper.class);

	private final LeaseStore store;

	private final NodeFacts nodes;

	private final Leases leases;

	private final WritePath path;

	private final LeaseSettings settings;

	private final Clock clock;

	private final MeterRegistry meters;

	private final Map<String, AtomicInteger> held = new ConcurrentHashMap<>();

	private final SweepTick tick;

	LeaseSweeper(LeaseStore store, NodeFacts nodes, Leases leases, SweepTick tick, WritePath path,
			LeaseSettings settings, Clock clock, MeterRegistry meters) {
		this.store = store;
		this.nodes = nodes;
		this.leases = leases;
		this.tick = tick;
		this.path = path;
		this.settings = settings;
		this.clock = clock;
		this.meters = meters;
	}

	/**
	 * One sweep.
	 * @return what it did, or {@link Sweep#NOT_LEADER} when another node holds the sweep
	 */
	@Transactional(timeout = 30)
	Sweep sweep() {
		if (!store.tryLeadSweep()) {
			return Sweep.NOT_LEADER;
		}
		Instant now = clock.instant();
		Duration outage = tick.record(now);
		Instant judgedAt = nodes
			.silentWritersThrough(now.minus(settings.flushAllowance()), now.minus(settings.silentNodeGrace()))
			.filter(through -> through.isBefore(now))
			.orElse(now)
			.minus(settings.flushAllowance());
		Sweep sweep = new Sweep(true, outage, 0, 0, 0, 0);
		Set<String> services = new LinkedHashSet<>(leases.servicesToSweep(judgedAt));
		held.forEach((service, count) -> {
			if (!services.contains(service)) {
				count.set(0);
			}
		});
		for (String service : services) {
			sweep = sweep.plus(sweepService(ServiceName.of(service), judgedAt));
		}
		return sweep;
	}

	private Sweep sweepService(ServiceName service, Instant judgedAt) {
		Optional<LockedService> locked = path.lockIfPresent(service);
		if (locked.isEmpty()) {
			return Sweep.NOTHING;
		}
		List<Instance> instances = locked.get().instances();
		EjectionCap.Decision decision = EjectionCap.decide(
				instances.stream().map(instance -> member(instance, judgedAt)).toList(), locked.get().base(),
				locked.get().settings().maxEjectionPercent());
		// Expiry is the registry's own act, capped by the ejection cap rather than by the
		// operators' unroutable budget.
		Changes changes = locked.get().changes(Guard.none());
		// Audited with the commit, with the revisions the changes were stored at.
		Map<InstanceId, AuditEntry> entries = new LinkedHashMap<>();
		int expired = 0;
		int ejected = 0;
		int removed = 0;
		for (Instance instance : instances) {
			boolean eject = decision.eject().contains(instance.id().value());
			boolean hold = decision.held().contains(instance.id().value());
			if (instance.ejected()
					&& !lease(instance).expiredAt(judgedAt.minus(settings.removeAfter(instance.leaseTtl())))) {
				continue;
			}
			if (instance.ejected()) {
				changes.remove(instance);
				entries.put(instance.id(), AuditEntry.of(Action.INSTANCE_REMOVE, service.value(), instance.id().value(),
						InstanceView.of(instance), null));
				removed++;
			}
			else if (eject || (hold && instance.health() == Health.PASSING)) {
				changes.put(instance, instance.expired(eject));
				entries.put(instance.id(),
						AuditEntry
							.of(Action.INSTANCE_EXPIRE, service.value(), instance.id().value(),
									InstanceView.of(instance), null)
							.withDetail("ejected", eject));
				expired += instance.health() == Health.PASSING ? 1 : 0;
				ejected += eject ? 1 : 0;
			}
		}
		changes.commit(Audit.entries((committed, trail) -> entries.forEach((id, entry) -> trail
			.system(entry.withAfter(Optional.ofNullable(committed.stored(id)).map(InstanceView::of).orElse(null))))));
		report(service, decision);
		return new Sweep(true, Duration.ZERO, expired, ejected, removed, decision.held().size());
	}

	private void report(ServiceName service, EjectionCap.Decision decision) {
		int count = decision.held().size();
		int before = held
			.computeIfAbsent(service.value(),
					name -> meters.gauge("ballast.lease.held", List.of(Tag.of("service", name)), new AtomicInteger()))
			.getAndSet(count);
		// Once per change, not once per sweep: the held set is stable while the cap
		// holds.
		if (count > 0 && count != before) {
			log.warn(
					"Ejection cap of service {} holds {} expired instances routable {}: ejections may leave {} of its "
							+ "capacity out, and {} is out",
					service, count, decision.held(), decision.allowance(), decision.out());
		}
	}

	private EjectionCap.Member member(Instance instance, Instant judgedAt) {
		Lease lease = lease(instance);
		return new EjectionCap.Member(instance.id().value(), instance.nominalWeight().value(), instance.serving(),
				instance.routable(), lease.expiresAt(),
				instance.health() == Health.CRITICAL || lease.expiredAt(judgedAt), instance.ejected());
	}

	private static Lease lease(Instance instance) {
		return new Lease(instance.lastRenewedAt(), instance.leaseTtl().duration());
	}

	/**
	 * What one sweep did.
	 *
	 * @param leader whether this node held the sweep
	 * @param extendedBy how much leases were extended for an outage
	 * @param expired leases that ran out in this sweep
	 * @param ejected instances made unroutable
	 * @param removed instances removed after {@code remove-after}
	 * @param held expired instances the cap keeps routable
	 */
	record Sweep(boolean leader, Duration extendedBy, int expired, int ejected, int removed, int held) {

		static final Sweep NOT_LEADER = new Sweep(false, Duration.ZERO, 0, 0, 0, 0);

		static final Sweep NOTHING = new Sweep(true, Duration.ZERO, 0, 0, 0, 0);

		Sweep plus(Sweep other) {
			return new Sweep(leader, extendedBy, expired + other.expired, ejected + other.ejected,
					removed + other.removed, held + other.held);
		}

	}

}
