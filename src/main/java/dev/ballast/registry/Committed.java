package dev.ballast.registry;

import java.util.List;
import java.util.Map;

import dev.ballast.audit.AuditEntry;

/**
 * What a set of changes stored, and the last step of the write path: the audit entries,
 * each marked with the caller's force and with whether it overrode the guard.
 */
public final class Committed {

	private final LockedService service;

	private final Guard guard;

	private final boolean forced;

	private final Map<InstanceId, Instance> stored;

	Committed(LockedService service, Guard guard, boolean forced, Map<InstanceId, Instance> stored) {
		this.service = service;
		this.guard = guard;
		this.forced = forced;
		this.stored = stored;
	}

	/** The instance as stored now (null when removed). */
	public Instance stored(InstanceId id) {
		return stored.get(id);
	}

	/** Every instance as stored now, in the order the changes were added. */
	public List<Instance> stored() {
		return stored.values().stream().toList();
	}

	/** Whether force took the changes past the guard. */
	public boolean forced() {
		return forced;
	}

	/** Records what a caller did. */
	public Committed audit(AuditEntry entry) {
		service.path().audit().record(marked(entry));
		return this;
	}

	/** Records what the registry did by itself. */
	public Committed auditSystem(AuditEntry entry) {
		service.path().audit().recordSystem(marked(entry));
		return this;
	}

	private AuditEntry marked(AuditEntry entry) {
		return entry.withForce(guard.force()).withDetail("guardOverridden", forced ? true : null);
	}

}
