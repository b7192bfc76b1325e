package dev.ballast.instance;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckRefusal;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.Committed;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LeaseTtl;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.Metadata;
import dev.ballast.registry.ReportedHealth;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.Tags;
import dev.ballast.registry.WritePath;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Service;

/** Registers, replaces and removes instances. */
@Service
class Registrations {

	private final WritePath path;

	private final WeightFields weights;

	private final Clock clock;

	private final CheckTargets targets;

	Registrations(WritePath path, WeightFields weights, Clock clock, CheckTargets targets) {
		this.path = path;
		this.weights = weights;
		this.clock = clock;
		this.targets = targets;
	}

	/**
	 * Creates or replaces an instance, creating its service with default settings if new.
	 * A registration equal to what is stored only renews the lease, so it costs no
	 * revision and wakes no watcher, but is audited all the same: a weight converted
	 * under NORMALIZE is recorded even when it converted to what was stored. A
	 * re-registration that sets a routable instance's weight to 0 is guarded like a
	 * drain. A refused request rolls back the service creation too. Committed with the
	 * registrations of other requests that arrive meanwhile ({@link WritePath#grouped}).
	 */
	Registration register(ServiceName service, InstanceId id, RegistrationRequest request) {
		return register(service, id, request, false, ReportedHealth.PASSING,
				CheckRequest.definitions(request.checks(), request.address(), request.port(), targets));
	}

	/**
	 * Like {@link #register(ServiceName, InstanceId, RegistrationRequest)}, for an
	 * entrance that names instances by id alone.
	 * @param idInOneService refuse the id when another service holds it
	 * ({@link WritePath#keepIdInOneService})
	 * @param health what the registrant reported with it, stored in the same revision
	 * @param definitions the checks the registry is to run, replacing those it ran
	 * @throws CheckRefusal when a check may not be probed ({@link CheckTargets})
	 */
	Registration register(ServiceName service, InstanceId id, RegistrationRequest request, boolean idInOneService,
			ReportedHealth health, List<CheckDefinition> definitions) {
		for (int index = 0; index < definitions.size(); index++) {
			try {
				targets.require(definitions.get(index), request.address(), request.port());
			}
			catch (CheckRefusal refusal) {
				throw refusal.at(index);
			}
		}
		return path.grouped(service, id, () -> registerNow(service, id, request, idInOneService, health, definitions));
	}

	private Registration registerNow(ServiceName service, InstanceId id, RegistrationRequest request,
			boolean idInOneService, ReportedHealth health, List<CheckDefinition> definitions) {
		Metadata metadata = Metadata.of(request.metadata(), "/metadata");
		Tags tags = Tags.of(request.tags(), "/tags", index -> "/tags/" + index);
		LockedService locked = path.lockOrCreate(service, id);
		if (idInOneService) {
			path.keepIdInOneService(service, id);
		}
		ServiceSettings settings = locked.settings();
		List<String> normalized = new ArrayList<>();
		Weight weight = request.weight() == null ? settings.defaultWeight()
				: weights.read(request.weight(), "/weight", settings, id.value(), normalized);
		// Checks without a lease of the instance's own keep the lease themselves.
		boolean checksKeepLease = !definitions.isEmpty() && request.leaseTtlSeconds() == null;
		LeaseTtl leaseTtl = checksKeepLease ? CheckDefinition.KEPT_LEASE
				: request.leaseTtlSeconds() == null ? settings.leaseTtl() : request.leaseTtlSeconds();
		Optional<Instance> existing = locked.find(id);
		Instance candidate = health.applied(locked, Instance.registered(service, id, request.address(), request.port(),
				request.zone(), weight, metadata, tags, leaseTtl, clock.instant(), existing.orElse(null)));
		Committed committed = locked.changes(Guard.of("re-registering", request.force(), Guard.FORCE_FIELD))
			.put(existing.orElse(null), candidate)
			.commit(Audit.of(done -> AuditEntry
				.of(existing.isEmpty() ? Action.INSTANCE_CREATE : Action.INSTANCE_REPLACE, service.value(), id.value(),
						existing.map(InstanceView::of).orElse(null), InstanceView.of(done.stored(id)))
				.withNormalizations(normalized)));
		path.replaceChecks(service, id, definitions, checksKeepLease);
		return new Registration(InstanceView.of(committed.stored(id)), existing.isEmpty(), normalized);
	}

	/**
	 * Removes an instance; watchers receive a {@code remove} event. Grouped like
	 * registrations.
	 */
	void deregister(ServiceName service, InstanceId id) {
		path.grouped(service, id, () -> {
			deregisterNow(service, id);
			return null;
		});
	}

	private void deregisterNow(ServiceName service, InstanceId id) {
		LockedService locked = path.lock(service);
		Instance instance = locked.instance(id);
		locked.changes(Guard.none())
			.remove(instance)
			.commit(Audit.of(committed -> AuditEntry.of(Action.INSTANCE_DEREGISTER, service.value(), id.value(),
					InstanceView.of(instance), null)));
	}

}
