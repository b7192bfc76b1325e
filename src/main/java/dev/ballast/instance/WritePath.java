package dev.ballast.instance;

import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;

import dev.ballast.audit.AuditTrail;
import dev.ballast.web.NotFoundException;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

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
@Transactional(propagation = Propagation.MANDATORY)
public class WritePath {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final BudgetGuard guard;

	private final ApplicationEventPublisher events;

	private final AuditTrail audit;

	private final Clock clock;

	private final GroupCommit groups;

	WritePath(ServiceStore services, InstanceStore instances, BudgetGuard guard, ApplicationEventPublisher events,
			AuditTrail audit, Clock clock, GroupCommit groups) {
		this.groups = groups;
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
	@Transactional(propagation = Propagation.SUPPORTS)
	<T> T grouped(ServiceName service, Supplier<T> write) {
		return groups.run(service, write);
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
		return services.lock(service).map(settings -> new LockedService(this, settings));
	}

	/** Like {@link #lock}, creating the service with default settings if it is new. */
	LockedService lockOrCreate(ServiceName service) {
		return new LockedService(this, services.lockOrCreate(service));
	}

	/**
	 * Like {@link #lockOrCreate(ServiceName)}, reading (and locking) one instance with
	 * the service in the same statement, for a write that is about that instance.
	 */
	LockedService lockOrCreate(ServiceName service, InstanceId id) {
		return instances.lockWithService(service, id).map(locked -> {
			LockedService lockedService = new LockedService(this, locked.settings());
			lockedService.stored(id, locked.instance().orElse(null));
			return lockedService;
		}).orElseGet(() -> lockOrCreate(service));
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

	/** Stores a changed instance under a new revision and announces it. */
	Instance save(Instance changed) {
		Instance stored = changed.withRevision(instances.upsertAtNextRevision(changed));
		events.publishEvent(new InstanceChanged(stored.service(), stored.revision(), stored.id(),
				InstanceView.of(stored), clock.instant()));
		return stored;
	}

	/** Removes an instance under a new revision and announces it. */
	void remove(Instance instance) {
		long revision = instances.deleteAtNextRevision(instance.service(), instance.id());
		events.publishEvent(new InstanceChanged(instance.service(), revision, instance.id(), null, clock.instant()));
	}

	/** Stores changed settings under a new revision and announces them. */
	ServiceSettings save(ServiceSettings changed) {
		long revision = services.nextRevision(changed.name());
		ServiceSettings stored = changed.withRevision(revision);
		services.update(stored);
		events.publishEvent(new ServiceChanged(stored.name(), revision, SettingsView.of(stored), clock.instant()));
		return stored;
	}

}
