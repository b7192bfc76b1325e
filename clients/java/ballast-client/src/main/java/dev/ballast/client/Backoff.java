package dev.ballast.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long to wait before reconnecting: the base delay doubles with each failure in a row
 * up to a maximum, and every delay is spread by ±50% so that clients cut off together do
 * not come back together. Not safe for use by several threads.
 */
final class Backoff {

	private static final Duration MIN_BASE = Duration.ofMillis(1);

	private final Duration max;

	private final RandomGenerator random;

	private Duration base;

	private int failures;

	Backoff(Duration base, Duration max, RandomGenerator random) {
		this.max = max;
		this.random = random;
		base(base);
	}

	/** The delay after one more failure: base × 2^(failures so far), capped, ±50%. */
	Duration afterFailure() {
		Duration unspread = min(base.multipliedBy(1L << Math.min(failures, 30)), max);
		failures++;
		return spread(unspread, 0.5 + random.nextDouble());
	}

	/**
	 * The delay after the server asked to reconnect: a fraction of the base only, to
	 * spread the clients of a node that closes all its streams at once.
	 */
	Duration afterRequest() {
		return spread(base, random.nextDouble());
	}

	/** Called after a healthy stream, so the next failure waits only the base delay. */
	void reset() {
		failures = 0;
	}

	/**
	 * Honours a {@code retry:} field: the server's choice of base delay, kept between 1
	 * ms (a base of zero would never grow, and a failing server would be called in a
	 * loop) and the maximum.
	 */
	void base(Duration base) {
		this.base = min(base.compareTo(MIN_BASE) < 0 ? MIN_BASE : base, max);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
	}

	private static Duration spread(Duration delay, double factor) {
		return Duration.ofNanos((long) (delay.toNanos() * factor));
	}

}
