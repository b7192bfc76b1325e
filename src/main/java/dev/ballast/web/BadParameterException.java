package dev.ballast.web;

import java.util.List;

/**
 * A query parameter or header with bad syntax (an index that is not a number, a wait that
 * is not a duration); answered with 400 and a {@link FieldError} naming it.
 */
public final class BadParameterException extends RuntimeException {

	private final transient FieldError error;

	public BadParameterException(String name, String detail) {
		super(detail, null, false, false);
		this.error = FieldError.parameter(name, detail);
	}

	public List<FieldError> errors() {
		return List.of(error);
	}

}
