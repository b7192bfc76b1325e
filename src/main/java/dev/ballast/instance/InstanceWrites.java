package dev.ballast.instance;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * State changes made by other modules (lease expiry, later drains and releases), inside
 * their transactions: each change locks, bumps the service revision, stores and announces
 * itself exactly as an API write does.
 */
@Component
@Transactional(propagation = Propagation.MANDATORY)
public class InstanceWrites {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final ApplicationEventPublisher events;

	private final Clock clock;

	InstanceWrites(ServiceStore services, InstanceStore instances, ApplicationEventPublisher events, Clock clock) {
		this.services = services;
		this.instances = instances;
		this.events = events;
		this.clock = clock;
	}

	/** Locks a service's row and all its instances until the transaction ends. */
	public Optional<LockedService> lock(ServiceName service) {
		return services.lock(service).map(settings -> new LockedService(settings, instances.lockAll(service)));
	}

	/**
	 * Locks one instance (and its service first, keeping the lock order of every writer).
	 */
	public Optional<Instance> lock(ServiceName service, InstanceId id) {
		return services.lock(service).flatMap(settings -> instances.lock(service, id));
	}

	/** Stores a changed instance under a new revision and announces it. */
	public Instance save(Instance changed) {
		Instance stored = changed.withRevision(services.nextRevision(changed.service()));
		instances.upsert(stored);
		events.publishEvent(new InstanceChanged(stored.service(), stored.revision(), stored.id(),
				InstanceView.of(stored), clock.instant()));
		return stored;
	}

	/**
	 * Stores {@code changed} if clients would see a difference from {@code current};
	 * returns what is stored now either way.
	 */
	public Instance change(Instance current, Instance changed) {
		return changed.sameRegistrationAs(current) ? current : save(changed);
	}

	/** Removes an instance under a new revision and announces it. */
	public void remove(Instance instance) {
		instances.delete(instance.service(), instance.id());
		long revision = services.nextRevision(instance.service());
		events.publishEvent(new InstanceChanged(instance.service(), revision, instance.id(), null, clock.instant()));
	}

	/**
	 * A service and its instances, locked.
	 *
	 * @param settings the service's settings
	 * @param instances its instances, sorted by id
	 */
	public record LockedService(ServiceSettings settings, List<Instance> instances) {
	}

}
