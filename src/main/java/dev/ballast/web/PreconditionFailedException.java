package dev.ballast.web;

/** A stale {@code If-Match}; answered with 412. */
public final class PreconditionFailedException extends RuntimeException {

	public PreconditionFailedException(String detail) {
		super(detail, null, false, false);
	}

}
