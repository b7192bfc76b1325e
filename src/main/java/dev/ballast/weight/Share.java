package dev.ballast.weight;

/**
 * A percentage of a total weight, in whole weight units. Rounds down, so a cap computed
 * with it never allows more than the percentage.
 */
public final class Share {

	private Share() {
	}

	/**
	 * @param total a sum of weights, at least 0
	 * @param percent 0 to 100
	 * @return {@code floor(total * percent / 100)}
	 */
	public static long of(long total, int percent) {
		if (total < 0) {
			throw new IllegalArgumentException("total weight must be at least 0; got " + total);
		}
		if (percent < 0 || percent > 100) {
			throw new IllegalArgumentException("percent must be an integer from 0 to 100; got " + percent);
		}
		return Math.multiplyExact(total, percent) / 100;
	}

}
