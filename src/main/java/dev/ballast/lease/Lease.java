package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A lease: it lasts exactly its TTL after the last renewal, not a moment more.
 *
 * @param lastRenewedAt the last renewal
 * @param ttl how long a renewal lasts
 */
record Lease(Instant lastRenewedAt, Duration ttl) {

	Lease {
		Objects.requireNonNull(lastRenewedAt, "lastRenewedAt");
		Objects.requireNonNull(ttl, "ttl");
	}

	Instant expiresAt() {
		return lastRenewedAt.plus(ttl);
	}

	/**
	 * Expired strictly after {@link #expiresAt()}: at that instant the lease still holds.
	 */
	boolean expiredAt(Instant now) {
		return now.isAfter(expiresAt());
	}

}
