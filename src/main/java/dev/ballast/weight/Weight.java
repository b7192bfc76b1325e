package dev.ballast.weight;

/**
 * The weight of a service instance: an integer from {@value #MIN} to {@value #MAX}.
 *
 * <p>
 * A Weight that exists is valid: the constructor refuses every other value, so code
 * holding a Weight never needs to check it again.
 */
public record Weight(int value) implements Comparable<Weight> {

	public static final int MIN = 0;

	public static final int MAX = 10_000;

	public static final Weight ZERO = new Weight(MIN);

	/**
	 * @throws IllegalArgumentException if {@code value} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public Weight {
		if (value < MIN || value > MAX) {
			throw new IllegalArgumentException(
					"weight must be an integer from " + MIN + " to " + MAX + "; got " + value);
		}
	}

	/**
	 * @throws IllegalArgumentException if {@code value} is outside
	 * {@value #MIN}..{@value #MAX}
	 */
	public static Weight of(int value) {
		return new Weight(value);
	}

	@Override
	public int compareTo(Weight other) {
		return Integer.compare(value, other.value);
	}
}
