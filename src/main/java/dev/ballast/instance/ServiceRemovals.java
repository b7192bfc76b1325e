package dev.ballast.instance;

import java.util.List;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Changes;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.web.ConflictException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Removes services. A service with instances is removed only with force, which removes
 * them first, each as its deregistration would: through the guard of the write path,
 * which never holds back an instance that leaves (ARCHITECTURE, Guards), and with a
 * {@code remove} event each. Then the service itself goes under one more revision, the
 * {@code delete} event that tells its watchers; its settings, capacity peaks, subscribers
 * and releases go with its row, while its change log and audit stay for their retention.
 * All in one transaction, audited as one {@code service.delete}.
 */
@Service
class ServiceRemovals {

	/** Instances a refusal names; the rest it counts. */
	static final int NAMED = 20;

	private final WritePath path;

	ServiceRemovals(WritePath path) {
		this.path = path;
	}

	/**
	 * @param force remove the service's instances with it
	 * @throws dev.ballast.web.NotFoundException when the service is not registered
	 * @throws ConflictException when it has instances and {@code force} is false
	 */
	@Transactional
	void remove(ServiceName service, boolean force) {
		LockedService locked = path.lock(service);
		List<Instance> instances = locked.instances();
		if (!instances.isEmpty() && !force) {
			throw new ConflictException(refusal(service, instances));
		}
		ServiceView before = ServiceView.of(locked.settings(), path.services().counts(service));
		Changes changes = locked
			.changes(Guard.of("removing service " + service + " with", force, Guard.FORCE_PARAMETER));
		instances.forEach(changes::remove);
		changes.commit(Audit.of(committed -> AuditEntry.of(Action.SERVICE_DELETE, service.value(), null, before, null)
			.withDetail("instances",
					instances.isEmpty() ? null : instances.stream().map(instance -> instance.id().value()).toList())));
		path.remove(locked);
	}

	private static String refusal(ServiceName service, List<Instance> instances) {
		List<String> named = instances.stream().limit(NAMED).map(instance -> instance.id().value()).toList();
		String more = instances.size() > NAMED ? " and %d more".formatted(instances.size() - NAMED) : "";
		return ("service %s has %d instance%s (%s%s): deregister %s first, or add ?force=true to remove %s with the "
				+ "service")
			.formatted(service, instances.size(), instances.size() == 1 ? "" : "s", String.join(", ", named), more,
					instances.size() == 1 ? "it" : "them", instances.size() == 1 ? "it" : "them");
	}

}
