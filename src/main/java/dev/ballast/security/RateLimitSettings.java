package dev.ballast.security;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.rate-limit.*}.
 *
 * @param writesPerSecond every token's limit on mutating requests (heartbeats included)
 * per second, on each node, unless the token has its own; a burst of one second's worth
 * is allowed
 */
@ConfigurationProperties("ballast.rate-limit")
record RateLimitSettings(@DefaultValue("2000") int writesPerSecond) {

	RateLimitSettings {
		if (writesPerSecond < 1) {
			throw new IllegalArgumentException(
					"ballast.rate-limit.writes-per-second must be at least 1; got " + writesPerSecond);
		}
	}

}
