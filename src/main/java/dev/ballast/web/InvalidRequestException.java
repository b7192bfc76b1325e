package dev.ballast.web;

import java.util.List;

/** A request that breaks the schema; answered with 422 and every {@link FieldError}. */
public final class InvalidRequestException extends RuntimeException {

	private final transient List<FieldError> errors;

	public InvalidRequestException(List<FieldError> errors) {
		super(errors.isEmpty() ? "invalid request" : errors.getFirst().detail(), null, false, false);
		this.errors = List.copyOf(errors);
	}

	public static InvalidRequestException of(String pointer, String detail) {
		return new InvalidRequestException(List.of(new FieldError(pointer, detail)));
	}

	public List<FieldError> errors() {
		return errors;
	}

}
