package dev.ballast.registry;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.writes.*}: how concurrent writes share a commit.
 *
 * @param maxGroup most writes committed in one transaction; what waits beyond it goes
 * into the next
 * @param commitWait how long a request waits for the transaction that carries its write
 * to commit before it is answered 503 (a write not yet started is then dropped; one
 * already started may still commit, as after any lost answer)
 */
@ConfigurationProperties("ballast.writes")
record WriteSettings(@DefaultValue("64") int maxGroup, @DefaultValue("10s") Duration commitWait) {

	WriteSettings {
		if (maxGroup < 1) {
			throw new IllegalArgumentException("ballast.writes.max-group must be at least 1; got " + maxGroup);
		}
		if (commitWait.isNegative() || commitWait.isZero()) {
			throw new IllegalArgumentException("ballast.writes.commit-wait must be positive; got " + commitWait);
		}
	}

}
