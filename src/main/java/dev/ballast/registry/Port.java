package dev.ballast.registry;

/**
 * The TCP port an instance serves on, or a check probes: an integer from {@value #MIN} to
 * {@value #MAX}, the one place that range is written.
 *
 * <p>
 * A Port that exists is valid: the constructor refuses every other value.
 *
 * @param value the port number
 */
public record Port(int value) {

	public static final int MIN = 1;

	public static final int MAX = 65_535;

	/** What a port must be, as refusals say it. */
	public static final String EXPECTED = "an integer from " + MIN + " to " + MAX;

	/**
	 * @throws IllegalArgumentException if {@code value} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public Port {
		if (value < MIN || value > MAX) {
			throw new IllegalArgumentException("a port must be " + EXPECTED + "; got " + value);
		}
	}

	/**
	 * @throws IllegalArgumentException if {@code value} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public static Port of(int value) {
		return new Port(value);
	}

	/** Whether {@code value} is a port. */
	public static boolean holds(long value) {
		return value >= MIN && value <= MAX;
	}

	/** The decimal number, as written after a host ({@code 10.0.0.5:8080}). */
	@Override
	public String toString() {
		return Integer.toString(value);
	}

}
