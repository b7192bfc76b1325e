package dev.ballast.instance;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import dev.ballast.audit.AuditTrail;
import dev.ballast.web.ConflictException;
import dev.ballast.web.NotFoundException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one write path. Every change to a service or its instances, from every entrance
 * (the REST API, compatibility APIs, the console) and from the registry's own jobs (lease
 * expiry, mode steps, weight override ends, releases), goes through it, inside the
 * caller's transaction and in this order: lock the service row (or answer 404) →
 * {@link Guard guard} → skip what does not change → new revision → change-log row and
 * notification → audit. An entrance gets all of it by calling {@link #lock}; nothing else
 * writes the {@code instance} or {@code service} tables.
 */
@Component
public class WritePath {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final BudgetGuard guard;

	private final ApplicationEventPublisher events;

	private final ObjectProvider<InstanceChanges> changeFollowers;

	/** Resolved at the first write: they depend on beans that depend on this one. */
	private volatile List<InstanceChanges> followers;

	private final AuditTrail audit;

	private final Clock clock;

	private final GroupCommit groups;

	private final WriteBehind behind;

	private final CapacityPeaks peaks;

	private final GuardSettings guardSettings;

	WritePath(ServiceStore services, InstanceStore instances, BudgetGuard guard, ApplicationEventPublisher events,
			ObjectProvider<InstanceChanges> changeFollowers, AuditTrail audit, Clock clock, GroupCommit groups,
			WriteBehind behind, CapacityPeaks peaks, GuardSettings guardSettings) {
		this.peaks = peaks;
		this.guardSettings = guardSettings;
		this.changeFollowers = changeFollowers;
		this.groups = groups;
		this.behind = behind;
		this.services = services;
		this.instances = instances;
		this.guard = guard;
		this.events = events;
		this.audit = audit;
		this.clock = clock;
	}

	/**
	 * Runs one write (everything from {@link #lock} to the audit) in a transaction shared
	 * with the writes of other requests that arrive meanwhile, and returns once it has
	 * committed: many writes, one commit (see {@link GroupCommit}). The write must lock
	 * {@code service} first, touch nothing outside the transaction but through
	 * {@link GroupCommit#afterCommit}, and may run more than once (when a write of its
	 * group is refused, the others run again without it). Inside a transaction it just
	 * runs in it.
	 */
	<T> T grouped(ServiceName service, InstanceId id, Supplier<T> write) {
		return groups.run(service, id, write);
	}

	/**
	 * Locks a service's row until the transaction ends; every writer of the service takes
	 * this lock first, so revisions are handed out and committed in order and the guard
	 * sees every concurrent writer's outcome.
	 * @throws NotFoundException when the service is not registered
	 */
	public LockedService lock(ServiceName service) {
		return lockIfPresent(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
	}

	/**
	 * Like {@link #lock}, for the registry's own jobs: empty when the service is gone.
	 */
	public Optional<LockedService> lockIfPresent(ServiceName service) {
		requireTransaction();
		WriteBehind.Rows group = behind.current();
		if (group != null && group.service(service) != null) {
			return Optional.of(new LockedService(this, group.service(service)));
		}
		written(group);
		Optional<ServiceSettings> locked = services.lock(service);
		if (group != null) {
			locked.ifPresent(group::locked);
		}
		return locked.map(settings -> new LockedService(this, settings));
	}

	/** Like {@link #lock}, creating the service with default settings if it is new. */
	LockedService lockOrCreate(ServiceName service) {
		requireTransaction();
		WriteBehind.Rows group = behind.current();
		if (group != null && group.service(service) != null) {
			return new LockedService(this, group.service(service));
		}
		written(group);
		ServiceSettings locked = services.lockOrCreate(service);
		if (group != null) {
			group.locked(locked);
		}
		return new LockedService(this, locked);
	}

	/**
	 * Like {@link #lockOrCreate(ServiceName)}, reading (and locking) one instance with
	 * the service in the same statement, for a write that is about that instance.
	 */
	LockedService lockOrCreate(ServiceName service, InstanceId id) {
		requireTransaction();
		WriteBehind.Rows group = behind.current();
		if (group != null && group.service(service) != null && group.instance(service, id) != null) {
			LockedService lockedService = new LockedService(this, group.service(service));
			lockedService.stored(id, group.instance(service, id).orElse(null));
			return lockedService;
		}
		written(group);
		return instances.lockWithService(service, id).map(locked -> {
			if (group != null) {
				group.locked(locked.settings());
				group.locked(service, id, locked.instance().orElse(null));
			}
			LockedService lockedService = new LockedService(this, locked.settings());
			lockedService.stored(id, locked.instance().orElse(null));
			return lockedService;
		}).orElseGet(() -> lockOrCreate(service));
	}

	/**
	 * Refuses to register {@code id} in {@code service} while another service holds it,
	 * for entrances that name instances by id alone (Consul's). A rule that holds under
	 * any concurrency: every such registration takes the id's lock before it reads where
	 * the id is, so a racer reads only after the winner committed (or, in the same group,
	 * after the winner's rows were written), and sees it. Call after locking the service.
	 * @throws ConflictException naming the id and the service that holds it
	 */
	void keepIdInOneService(ServiceName service, InstanceId id) {
		instances.lockId(id);
		written(behind.current());
		List<ServiceName> others = instances.servicesHolding(id)
			.stream()
			.filter(holder -> !holder.equals(service))
			.toList();
		if (!others.isEmpty()) {
			throw new ConflictException(("ID \"%s\" is registered in service %s: Ballast keeps an instance in one "
					+ "service; deregister it there first")
				.formatted(id, others.getFirst()));
		}
	}

	/** Locks and reads one instance of a locked service. */
	Optional<Instance> lockInstance(ServiceName service, InstanceId id) {
		WriteBehind.Rows group = behind.current();
		if (group != null && group.instance(service, id) != null) {
			return group.instance(service, id);
		}
		written(group);
		Optional<Instance> locked = instances.lock(service, id);
		if (group != null) {
			group.locked(service, id, locked.orElse(null));
		}
		return locked;
	}

	/** Locks and reads every instance of a locked service, sorted by id. */
	List<Instance> lockAll(ServiceName service) {
		WriteBehind.Rows group = behind.current();
		written(group);
		List<Instance> locked = instances.lockAll(service);
		if (group != null) {
			locked.forEach(instance -> group.locked(service, instance.id(), instance));
		}
		return locked;
	}

	/**
	 * A lock lasts until the transaction ends, so there must be one to lock in. Checked
	 * here rather than by a transactional proxy, whose interceptor cost more on every
	 * write than the check.
	 */
	private static void requireTransaction() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalTransactionStateException("a write locks its service in the caller's transaction; "
					+ "there is none (write through grouped, or in a transaction)");
		}
	}

	/**
	 * Writes what a group's transaction keeps in memory before a statement that must see
	 * it.
	 */
	private static void written(WriteBehind.Rows group) {
		if (group != null) {
			group.write();
		}
	}

	ServiceStore services() {
		return services;
	}

	InstanceStore instances() {
		return instances;
	}

	BudgetGuard guard() {
		return guard;
	}

	AuditTrail audit() {
		return audit;
	}

	CapacityPeaks peaks() {
		return peaks;
	}

	Duration capacityWindow() {
		return guardSettings.capacityWindow();
	}

	Instant now() {
		return clock.instant();
	}

	/** Stores a changed instance under a new revision and announces it. */
	Instance save(Instance changed) {
		WriteBehind.Rows group = behind.current();
		Instance stored;
		if (group != null) {
			stored = changed.withRevision(group.nextRevision(changed.service()));
			group.put(stored);
		}
		else {
			stored = changed.withRevision(instances.upsertAtNextRevision(changed));
		}
		changed(new InstanceChanged(stored.service(), stored.revision(), stored.id(), InstanceView.of(stored),
				clock.instant()));
		return stored;
	}

	/**
	 * Renews a lease without a revision: {@code renewed} is what is stored with only its
	 * lease times changed.
	 */
	void renew(Instance renewed) {
		WriteBehind.Rows group = behind.current();
		if (group != null) {
			group.put(renewed);
		}
		else {
			instances.renew(renewed.service(), renewed.id(), renewed.lastRenewedAt());
		}
	}

	/** Removes an instance under a new revision and announces it. */
	void remove(Instance instance) {
		WriteBehind.Rows group = behind.current();
		long revision;
		if (group != null) {
			revision = group.nextRevision(instance.service());
			group.remove(instance.service(), instance.id());
		}
		else {
			revision = instances.deleteAtNextRevision(instance.service(), instance.id());
		}
		changed(new InstanceChanged(instance.service(), revision, instance.id(), null, clock.instant()));
	}

	private void changed(InstanceChanged change) {
		List<InstanceChanges> told = followers;
		if (told == null) {
			told = changeFollowers.orderedStream().toList();
			followers = told;
		}
		for (InstanceChanges follower : told) {
			follower.changed(change);
		}
	}

	/**
	 * Removes a locked service whose instances were removed in this transaction, under a
	 * new revision, and announces it: the row goes with everything that hangs on it
	 * (settings, capacity peaks, subscribers, releases), and its last revision is kept
	 * for the name, where a registration under it or a watcher of it starts.
	 */
	void remove(LockedService locked) {
		written(behind.current());
		ServiceName name = locked.name();
		long revision = services.nextRevision(name);
		services.remove(name, revision);
		events.publishEvent(new ServiceRemoved(name, revision, clock.instant()));
	}

	/** Stores changed settings under a new revision and announces them. */
	ServiceSettings save(ServiceSettings changed) {
		WriteBehind.Rows group = behind.current();
		written(group);
		long revision = services.nextRevision(changed.name());
		ServiceSettings stored = changed.withRevision(revision);
		services.update(stored);
		if (group != null) {
			group.updated(stored);
		}
		events.publishEvent(new ServiceChanged(stored.name(), revision, SettingsView.of(stored), clock.instant()));
		return stored;
	}

}
