package dev.ballast.web;

import org.springframework.http.ResponseEntity;

/** Response headers of the registry's HTTP contract. */
public final class Headers {

	/** The revision an answer is current at; clients pass it back as {@code ?index=}. */
	public static final String INDEX = "X-Ballast-Index";

	/**
	 * {@code true} on an answer from the node's last known state, served while the
	 * database is unreachable; absent on fresh answers.
	 */
	public static final String STALE = "X-Ballast-Stale";

	/** How the OpenAPI document describes {@link #STALE}. */
	public static final String STALE_DESCRIPTION = "true when the database is unreachable and the answer is this "
			+ "node's last known state; absent on fresh answers";

	/**
	 * Comma-separated JSON pointers of the fields converted under the NORMALIZE policy.
	 */
	public static final String NORMALIZED = "Ballast-Normalized";

	private Headers() {
	}

	/** A 200 response, marked stale when {@code stale}. */
	public static ResponseEntity.BodyBuilder ok(boolean stale) {
		return stale ? ResponseEntity.ok().header(STALE, "true") : ResponseEntity.ok();
	}

}
