package dev.ballast.web;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request that would break a guard (the unroutable budget); answered with 409, a detail
 * that says which limit and by how much, and the figures in the problem's {@code guard}
 * member.
 */
public final class GuardBreachException extends RuntimeException {

	private final transient Map<String, Object> guard;

	public GuardBreachException(String detail, Map<String, Object> guard) {
		super(detail, null, false, false);
		// Kept in the order given: the problem body lists the figures in a stable order.
		this.guard = Collections.unmodifiableMap(new LinkedHashMap<>(guard));
	}

	public Map<String, Object> guard() {
		return guard;
	}

}
