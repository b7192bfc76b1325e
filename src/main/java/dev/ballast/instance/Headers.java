package dev.ballast.instance;

/** Response headers of the registry's HTTP contract. */
public final class Headers {

	/** The revision an answer is current at; clients pass it back as {@code ?index=}. */
	public static final String INDEX = "X-Ballast-Index";

	/**
	 * Comma-separated JSON pointers of the fields converted under the NORMALIZE policy.
	 */
	static final String NORMALIZED = "Ballast-Normalized";

	private Headers() {
	}

}
