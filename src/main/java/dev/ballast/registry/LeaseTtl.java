package dev.ballast.registry;

import java.time.Duration;
import java.util.Optional;

/**
 * How long an instance's lease lasts after each renewal: a whole number of seconds from
 * {@value #MIN} to {@value #MAX}, the one place that range is written.
 *
 * <p>
 * A LeaseTtl that exists is valid: the constructor refuses every other value.
 *
 * @param seconds the TTL in seconds
 */
public record LeaseTtl(int seconds) {

	public static final int MIN = 5;

	public static final int MAX = 300;

	/** What a lease TTL in seconds must be, as refusals say it. */
	public static final String EXPECTED = "an integer from " + MIN + " to " + MAX;

	/**
	 * @throws IllegalArgumentException if {@code seconds} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public LeaseTtl {
		if (seconds < MIN || seconds > MAX) {
			throw new IllegalArgumentException("a lease TTL must be " + EXPECTED + " seconds; got " + seconds);
		}
	}

	/**
	 * @throws IllegalArgumentException if {@code seconds} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public static LeaseTtl ofSeconds(int seconds) {
		return new LeaseTtl(seconds);
	}

	/**
	 * The TTL a duration names, when it is a whole number of seconds in range, as a
	 * Consul TTL check's {@code TTL} becomes the lease.
	 */
	public static Optional<LeaseTtl> of(Duration duration) {
		if (duration.toNanosPart() != 0 || duration.toSeconds() < MIN || duration.toSeconds() > MAX) {
			return Optional.empty();
		}
		return Optional.of(new LeaseTtl((int) duration.toSeconds()));
	}

	public Duration duration() {
		return Duration.ofSeconds(seconds);
	}

}
