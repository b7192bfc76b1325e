package dev.ballast.web;

/**
 * A request that the current state forbids (a release already under way, a group with
 * nothing to take the traffic); answered with 409 and what to do instead.
 */
public final class ConflictException extends RuntimeException {

	public ConflictException(String detail) {
		super(detail, null, false, false);
	}

}
