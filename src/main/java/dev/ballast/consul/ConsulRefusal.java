package dev.ballast.consul;

import org.springframework.http.HttpStatus;

/**
 * A Consul request refused in Consul's manner: a status and one line of plain text that
 * names the field.
 */
final class ConsulRefusal extends RuntimeException {

	private final HttpStatus status;

	ConsulRefusal(HttpStatus status, String text) {
		super(text, null, false, false);
		this.status = status;
	}

	static ConsulRefusal badRequest(String field, String detail) {
		return new ConsulRefusal(HttpStatus.BAD_REQUEST, "Invalid " + field + ": " + detail);
	}

	HttpStatus status() {
		return status;
	}

}
