package dev.ballast.security;

import java.time.Instant;
import java.util.UUID;

/**
 * A token as the registry knows it (never its secret).
 *
 * @param id its identity, shown in the audit log
 * @param name what it is for
 * @param role what it may do
 * @param scope for a registrant, the services it may register in; for a reader, when it
 * has one, the only services it may read; otherwise null
 * @param writesPerSecond its own write rate limit, or null for the node's default
 * @param createdAt when it was created
 * @param expiresAt when it stops working, or null
 */
record Token(UUID id, String name, Role role, ServiceScope scope, Integer writesPerSecond, Instant createdAt,
		Instant expiresAt) {

	boolean expiredAt(Instant now) {
		return expiresAt != null && !now.isBefore(expiresAt);
	}

	/**
	 * May this token read the service? Every token may, but a reader scoped to services,
	 * which reads only those. A registrant's scope is where it registers: it reads every
	 * service, as the applications that register themselves discover the others.
	 */
	boolean readsIn(String service) {
		return !readsScoped() || scope.covers(service);
	}

	/** Whether it is a reader scoped to services: it may not read across services. */
	boolean readsScoped() {
		return role == Role.READER && scope != null;
	}

	/** May this token register, heartbeat and deregister in the service? */
	boolean registersIn(String service) {
		return role.granted().contains(Role.OPERATOR) || (role == Role.REGISTRANT && scope.covers(service));
	}

	/** As a refusal names it: {@code token "edge" (reader for demo)}. */
	String describe() {
		String services = scope == null ? "" : " for " + String.join(", ", scope.patterns());
		return "token \"%s\" (%s%s)".formatted(name, role.json(), services);
	}

}
