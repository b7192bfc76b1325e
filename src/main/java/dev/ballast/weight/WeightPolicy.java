package dev.ballast.weight;

/** How forgiving {@link WeightReader} is about the JSON shape of a weight. */
public enum WeightPolicy {

	/** Accept only a JSON integer from 0 to 10000, such as {@code 42}. */
	STRICT,

	/**
	 * Also accept, reporting each conversion, a string holding a canonical decimal
	 * integer from 0 to 10000 with optional surrounding ASCII spaces (not tabs), such as
	 * {@code " 42 "}, and a finite JSON number with no fractional part, such as
	 * {@code 42.0} or {@code 4.2e1}; negative zero ({@code -0.0}) is accepted as 0
	 * because it is numerically equal to it.
	 */
	NORMALIZE

}
