package dev.ballast.instance;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;
import dev.ballast.web.NotFoundException;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Registers, replaces and removes instances. */
@Service
class Registrations {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final WeightFields weights;

	private final InstanceWrites writes;

	private final AuditTrail audit;

	private final Clock clock;

	Registrations(ServiceStore services, InstanceStore instances, WeightFields weights, InstanceWrites writes,
			AuditTrail audit, Clock clock) {
		this.services = services;
		this.instances = instances;
		this.weights = weights;
		this.writes = writes;
		this.audit = audit;
		this.clock = clock;
	}

	/**
	 * Creates or replaces an instance, creating its service with default settings if new.
	 * A registration equal to what is stored only renews the lease, so it costs no
	 * revision and wakes no watcher, but is audited all the same: a weight converted
	 * under NORMALIZE is recorded even when it converted to what was stored. A refused
	 * weight rolls back the service creation too.
	 */
	@Transactional
	Registration register(ServiceName service, InstanceId id, RegistrationRequest request) {
		Metadata metadata = Metadata.of(request.metadata(), "/metadata");
		ServiceSettings settings = services.lockOrCreate(service);
		List<String> normalized = new ArrayList<>();
		Weight weight = request.weight() == null ? settings.defaultWeight()
				: weights.read(request.weight(), "/weight", settings, id.value(), normalized);
		int leaseTtl = request.leaseTtlSeconds() == null ? settings.leaseTtlSeconds() : request.leaseTtlSeconds();
		Instant now = clock.instant();
		Optional<Instance> existing = instances.lock(service, id);
		Mode mode = existing.map(Instance::mode).orElse(Mode.SERVING);
		Weight effective = Instance.effective(weight, mode, false,
				existing.map(Instance::effectiveWeight).orElse(weight));
		Instance candidate = new Instance(service, id, request.address(), request.port(), request.zone(), weight,
				effective, mode, existing.map(Instance::detail).orElse(null), Health.PASSING, false, metadata, leaseTtl,
				now, existing.map(Instance::revision).orElse(0L));
		Registration registration;
		if (existing.isPresent() && candidate.sameRegistrationAs(existing.get())) {
			instances.renew(service, id, now);
			registration = new Registration(InstanceView.of(candidate), false, normalized);
		}
		else {
			registration = new Registration(InstanceView.of(writes.save(candidate)), existing.isEmpty(), normalized);
		}
		audit.record(AuditEntry
			.of(registration.created() ? Action.INSTANCE_CREATE : Action.INSTANCE_REPLACE, service.value(), id.value(),
					existing.map(InstanceView::of).orElse(null), registration.instance())
			.withNormalizations(normalized));
		return registration;
	}

	/** Removes an instance; watchers receive a {@code remove} event. */
	@Transactional
	void deregister(ServiceName service, InstanceId id) {
		services.lock(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
		Instance instance = instances.lock(service, id)
			.orElseThrow(
					() -> new NotFoundException("instance %s of service %s is not registered".formatted(id, service)));
		writes.remove(instance);
		audit.record(AuditEntry.of(Action.INSTANCE_DEREGISTER, service.value(), id.value(), InstanceView.of(instance),
				null));
	}

}
