package dev.ballast.lease;

import java.time.Duration;

import dev.ballast.registry.LeaseTtl;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.lease.*}.
 *
 * @param flushInterval how often absorbed heartbeats are written to the database
 * @param sweepInterval how often expired leases are looked for; each sweep scans the
 * instance table (about 0.1 s of database time per 100,000 instances measured here), so
 * it runs less often than the flush
 * @param pauseTolerance a sweep gap beyond the interval plus this is an outage, unless
 * this node kept watching all along ({@link Vigil}); a wake-up of this node later than
 * this is a pause
 * @param removeAfter how long an ejected instance stays listed after its lease ran out;
 * {@code null} means three times its TTL
 * @param scheduled whether this node runs the flush and sweep timers (tests drive them)
 * @param silentNodeGrace how long a node that stopped writing its absorbed heartbeats
 * (cut off from the database, or paused) holds back expiries: leases are judged no later
 * than the moment it last wrote them, so a renewal only it holds never causes an expiry
 * elsewhere; after this long it counts as gone, as a killed node does
 */
@ConfigurationProperties("ballast.lease")
record LeaseSettings(@DefaultValue("1s") Duration flushInterval, @DefaultValue("5s") Duration sweepInterval,
		@DefaultValue("2s") Duration pauseTolerance, Duration removeAfter, @DefaultValue("true") boolean scheduled,
		@DefaultValue("30s") Duration silentNodeGrace) {

	/**
	 * Renewals reach the database up to one flush interval late (two, if a flush was
	 * slow), so leases are judged as of that much earlier: a renewal still in a node's
	 * buffer can delay an expiry but never cause one.
	 */
	Duration flushAllowance() {
		return flushInterval.multipliedBy(2);
	}

	Duration removeAfter(LeaseTtl ttl) {
		return removeAfter != null ? removeAfter : ttl.duration().multipliedBy(3);
	}

}
