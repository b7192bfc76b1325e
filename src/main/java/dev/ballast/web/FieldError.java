package dev.ballast.web;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One refused part of a request.
 *
 * @param pointer JSON pointer (RFC 6901) into the request body, or the name of the path
 * or query parameter prefixed with {@code #} (for example {@code #service})
 * @param detail what was expected and what was received
 */
@Schema(description = "One refused part of a request")
public record FieldError(
		@Schema(description = "JSON pointer into the body, or #name for a path or query parameter",
				example = "/weight") String pointer,
		@Schema(example = "weight must be an integer from 0 to 10000; got the string \"0\"") String detail) {

	public static FieldError parameter(String name, String detail) {
		return new FieldError("#" + name, detail);
	}

}
