package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;

/**
 * How long the registry was not watching leases, judged from the previous sweep tick
 * recorded in the database. A gap up to the sweep interval plus a tolerance is normal;
 * beyond it, the whole gap past one interval is an outage by which leases are extended. A
 * clock that went backwards is no outage.
 */
final class SweepGap {

	private SweepGap() {
	}

	static Duration outage(Instant previousTick, Instant now, Duration interval, Duration tolerance) {
		if (previousTick == null || !now.isAfter(previousTick)) {
			return Duration.ZERO;
		}
		Duration gap = Duration.between(previousTick, now);
		return gap.compareTo(interval.plus(tolerance)) > 0 ? gap.minus(interval) : Duration.ZERO;
	}

}
