package dev.ballast.registry;

import java.util.List;
import java.util.Map;

import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;

/**
 * What a set of changes stored, from which its audit entries are made ({@link Audit}),
 * the last step of the write path.
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

	/** Records the entries of {@code audit}, marked. */
	void record(Audit audit) {
		AuditTrail trail = service.path().audit();
		audit.record(this, new Audit.Trail() {

			@Override
			public void caller(AuditEntry entry) {
				trail.record(marked(entry));
			}

			@Override
			public void system(AuditEntry entry) {
				trail.recordSystem(marked(entry));
			}

		});
	}

	private AuditEntry marked(AuditEntry entry) {
		return entry.withForce(guard.force()).withDetail("guardOverridden", forced ? true : null);
	}

}
