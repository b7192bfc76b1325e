package dev.ballast.security;

import java.time.Instant;
import java.util.UUID;

/**
 * A token as the registry knows it (never its secret).
 *
 * @param id its identity, shown in the audit log
 * @param name what it is for
 * @param role what it may do
 * @param scope for a registrant, the services it may register in; otherwise null
 * @param writesPerSecond its own write rate limit, or null for the node's default
 * @param createdAt when it was created
 * @param expiresAt when it stops working, or null
 */
record Token(UUID id, String name, Role role, ServiceScope scope, Integer writesPerSecond, Instant createdAt,
		Instant expiresAt) {

	boolean expiredAt(Instant now) {
		return expiresAt != null && !now.isBefore(expiresAt);
	}

	/** May this token register, heartbeat and deregister in the service? */
	boolean registersIn(String service) {
		return role.granted().contains(Role.OPERATOR) || (role == Role.REGISTRANT && scope.covers(service));
	}

}
