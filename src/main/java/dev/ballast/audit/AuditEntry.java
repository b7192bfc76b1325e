package dev.ballast.audit;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mutation to record.
 *
 * @param action what was done
 * @param service the service it concerned, or {@code null}
 * @param instance the instance it concerned, or {@code null} for a service or a release
 * @param before the resource before, as clients see it; {@code null} when it was created
 * @param after the resource after; {@code null} when it was removed
 * @param normalizations JSON pointers of fields converted under the NORMALIZE policy
 * @param forced whether the request carried the guard's {@code force}
 * @param details what the request said that before and after do not show (the end time of
 * a weight override, a drain's duration), or empty
 */
public record AuditEntry(Action action, String service, String instance, Object before, Object after,
		List<String> normalizations, boolean forced, Map<String, Object> details) {

	public AuditEntry {
		if (action == null) {
			throw new IllegalArgumentException("an audit entry needs an action");
		}
		normalizations = List.copyOf(normalizations);
		details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
	}

	/** An entry with no normalizations, no force and no details. */
	public static AuditEntry of(Action action, String service, String instance, Object before, Object after) {
		return new AuditEntry(action, service, instance, before, after, List.of(), false, Map.of());
	}

	public AuditEntry withAfter(Object changed) {
		return new AuditEntry(action, service, instance, before, changed, normalizations, forced, details);
	}

	public AuditEntry withNormalizations(List<String> pointers) {
		return new AuditEntry(action, service, instance, before, after, pointers, forced, details);
	}

	public AuditEntry withForce(boolean force) {
		return new AuditEntry(action, service, instance, before, after, normalizations, force, details);
	}

	/** Adds a detail; a {@code null} value is left out. */
	public AuditEntry withDetail(String name, Object value) {
		if (value == null) {
			return this;
		}
		Map<String, Object> more = new LinkedHashMap<>(details);
		more.put(name, value);
		return new AuditEntry(action, service, instance, before, after, normalizations, forced, more);
	}

}
