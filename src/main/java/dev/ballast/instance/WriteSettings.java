package dev.ballast.instance;

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
 * @param companyWait how long the committer, about to begin a group, waits at most for
 * writes request threads have received and not yet handed in, so that they share its
 * commit (0: it never waits)
 */
@ConfigurationProperties("ballast.writes")
record WriteSettings(@DefaultValue("64") int maxGroup, @DefaultValue("10s") Duration commitWait,
		@DefaultValue("2ms") Duration companyWait) {

	WriteSettings {
		if (maxGroup < 1) {
			throw new IllegalArgumentException("ballast.writes.max-group must be at least 1; got " + maxGroup);
		}
		if (commitWait.isNegative() || commitWait.isZero()) {
			throw new IllegalArgumentException("ballast.writes.commit-wait must be positive; got " + commitWait);
		}
		if (companyWait.isNegative() || companyWait.compareTo(commitWait) >= 0) {
			throw new IllegalArgumentException(
					"ballast.writes.company-wait must be at least 0 and less than the commit wait; got " + companyWait);
		}
	}

}
