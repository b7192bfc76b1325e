package dev.ballast.web;

/** An unknown service or instance; answered with 404. */
public final class NotFoundException extends RuntimeException {

	public NotFoundException(String detail) {
		super(detail, null, false, false);
	}

}
