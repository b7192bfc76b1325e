package dev.ballast.web;

/**
 * The node sheds this request to protect what it already serves (its watcher cap is
 * reached); answered with 503 and a jittered Retry-After, so that clients retry spread
 * out, here or on another node.
 */
public final class OverloadedException extends RuntimeException {

	public OverloadedException(String detail) {
		super(detail, null, false, false);
	}

}
