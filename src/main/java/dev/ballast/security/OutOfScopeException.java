package dev.ballast.security;

/**
 * The caller's token does not cover the service its request turned out to address;
 * answered with 403.
 */
public final class OutOfScopeException extends RuntimeException {

	public OutOfScopeException(String detail) {
		super(detail, null, false, false);
	}

}
