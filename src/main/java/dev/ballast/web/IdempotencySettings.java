package dev.ballast.web;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.idempotency.*}.
 *
 * @param pruneInterval how often the answers kept for {@code Idempotency-Key}s past
 * {@link IdempotencyKeys#KEPT} are pruned
 * @param scheduled whether this node runs the pruning job (tests drive it)
 */
@ConfigurationProperties("ballast.idempotency")
record IdempotencySettings(@DefaultValue("1h") Duration pruneInterval, @DefaultValue("true") boolean scheduled) {

	IdempotencySettings {
		if (pruneInterval.isNegative() || pruneInterval.isZero()) {
			throw new IllegalArgumentException(
					"ballast.idempotency.prune-interval must be positive; got " + pruneInterval);
		}
	}

}
