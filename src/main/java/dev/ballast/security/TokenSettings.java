package dev.ballast.security;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.tokens.*}.
 *
 * @param expiryCheck how often the tokens in force are looked at for one that expired
 * since, so a stream opened with it ends at most about that late after its
 * {@code expiresAt}
 * @param scheduled whether this node runs that timer (tests drive it)
 */
@ConfigurationProperties("ballast.tokens")
record TokenSettings(@DefaultValue("250ms") Duration expiryCheck, @DefaultValue("true") boolean scheduled) {

	TokenSettings {
		if (expiryCheck.isNegative() || expiryCheck.isZero()) {
			throw new IllegalArgumentException("ballast.tokens.expiry-check must be positive; got " + expiryCheck);
		}
	}

}
