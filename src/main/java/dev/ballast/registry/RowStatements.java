package dev.ballast.registry;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.ballast.database.CommitBatch;

import org.springframework.stereotype.Component;

/**
 * The rows of a transaction that is no group's: each read and write is a statement, run
 * at once.
 */
@Component
final class RowStatements implements RowAccess {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final Checks checks;

	private final CommitBatch batch;

	RowStatements(ServiceStore services, InstanceStore instances, Checks checks, CommitBatch batch) {
		this.services = services;
		this.instances = instances;
		this.checks = checks;
		this.batch = batch;
	}

	@Override
	public Optional<ServiceSettings> lockService(ServiceName name) {
		return services.lock(name);
	}

	@Override
	public ServiceSettings lockOrCreateService(ServiceName name) {
		return services.lockOrCreate(name);
	}

	@Override
	public Optional<InstanceStore.ServiceWithInstance> lockWithInstance(ServiceName service, InstanceId id) {
		return instances.lockWithService(service, id);
	}

	@Override
	public Optional<Instance> lockInstance(ServiceName service, InstanceId id) {
		return instances.lock(service, id);
	}

	@Override
	public List<Instance> lockAll(ServiceName service) {
		return instances.lockAll(service);
	}

	@Override
	public void flush() {
		// Every change is a statement run already.
	}

	@Override
	public Instance save(Instance changed) {
		return changed.withRevision(instances.upsertAtNextRevision(changed));
	}

	@Override
	public void renew(Instance renewed) {
		instances.renew(renewed.service(), renewed.id(), renewed.lastRenewedAt());
	}

	@Override
	public long remove(ServiceName service, InstanceId id) {
		return instances.deleteAtNextRevision(service, id);
	}

	@Override
	public void replaceChecks(ServiceName service, InstanceId id, List<CheckDefinition> definitions, boolean keepsLease,
			Instant now) {
		checks.appendReplace(service, id, definitions, keepsLease, now);
		batch.flush();
	}

	@Override
	public long nextRevision(ServiceName name) {
		return services.nextRevision(name);
	}

	@Override
	public void updated(ServiceSettings settings) {
		// Nothing is kept.
	}

}
