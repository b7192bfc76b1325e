package dev.ballast.release;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.Mode;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Maintenance as entrances other than the REST API (the Consul-compatible one) switch it:
 * on, guarded exactly like {@code POST .../maintenance}; off, only ending maintenance, so
 * that switching it off never undoes an operator's drain.
 */
@Component
public class Maintenance {

	private final ModeChanges changes;

	private final WritePath path;

	Maintenance(ModeChanges changes, WritePath path) {
		this.changes = changes;
		this.path = path;
	}

	/**
	 * Puts the instance in maintenance (effective weight 0 at once).
	 * @throws dev.ballast.web.GuardBreachException when the unroutable budget would break
	 */
	public InstanceView enable(ServiceName service, InstanceId id, String reason) {
		return changes.maintenance(service, id, new MaintenanceRequest(reason, null, false));
	}

	/**
	 * Ends the instance's maintenance, warming up for the default warm-up as {@code POST
	 * .../serve} without a body does; an instance not in maintenance is left as it is.
	 */
	@Transactional
	public InstanceView disable(ServiceName service, InstanceId id) {
		var current = path.lock(service).instance(id);
		if (current.mode() != Mode.MAINTENANCE) {
			return InstanceView.of(current);
		}
		return changes.serve(service, id, new ServeRequest(null));
	}

}
