package dev.ballast.instance;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Time as the registry stores it. */
final class Leases {

	private Leases() {
	}

	/**
	 * Now, to the millisecond: PostgreSQL keeps microseconds and clients read
	 * milliseconds, so a time is cut once, before it is stored or answered, and reads
	 * back identical.
	 */
	static Instant now(Clock clock) {
		return clock.instant().truncatedTo(ChronoUnit.MILLIS);
	}

}
