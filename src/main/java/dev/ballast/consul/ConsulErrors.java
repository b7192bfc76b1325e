package dev.ballast.consul;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

import dev.ballast.security.OutOfScopeException;
import dev.ballast.web.BadParameterException;
import dev.ballast.web.ConflictException;
import dev.ballast.web.FieldError;
import dev.ballast.web.GuardBreachException;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.NotFoundException;
import dev.ballast.web.OverloadedException;
import dev.ballast.web.RetryAfter;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Refusals of the Consul surface as Consul words them: a status and plain text, which its
 * clients show as they are. Written straight to the response, so that no content
 * negotiation can turn a refusal into a 406. What is not listed here (the database
 * unavailable, an unforeseen failure) is answered by the registry's problem details.
 */
@RestControllerAdvice(
		assignableTypes = { ConsulAgentController.class, ConsulAgentReads.class, ConsulCatalogController.class })
@Order(Ordered.HIGHEST_PRECEDENCE)
class ConsulErrors {

	@ExceptionHandler
	void refused(ConsulRefusal ex, HttpServletResponse response) throws IOException {
		send(response, ex.status(), ex.getMessage());
	}

	@ExceptionHandler
	void invalid(InvalidRequestException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.BAD_REQUEST,
				"Invalid request: " + ex.errors()
					.stream()
					.map(error -> field(error) + ": " + error.detail())
					.collect(Collectors.joining("; ")));
	}

	@ExceptionHandler
	void badParameter(BadParameterException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.BAD_REQUEST, "Invalid " + field(ex.errors().getFirst()) + ": " + ex.getMessage());
	}

	@ExceptionHandler
	void notFound(NotFoundException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler
	void guard(GuardBreachException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.CONFLICT, "Refused by Ballast's guard: " + ex.getMessage());
	}

	@ExceptionHandler
	void conflict(ConflictException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler
	void outOfScope(OutOfScopeException ex, HttpServletResponse response) throws IOException {
		send(response, HttpStatus.FORBIDDEN, "Permission denied: " + ex.getMessage());
	}

	@ExceptionHandler
	void overloaded(OverloadedException ex, HttpServletResponse response) throws IOException {
		response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(5));
		send(response, HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

	/**
	 * A body pointer ({@code /Meta/version}) or parameter ({@code #id}) as Consul names
	 * fields.
	 */
	private static String field(FieldError error) {
		String pointer = error.pointer();
		String bare = pointer.startsWith("#") || pointer.startsWith("/") ? pointer.substring(1) : pointer;
		return bare.replace('/', '.');
	}

	private static void send(HttpServletResponse response, HttpStatus status, String text) throws IOException {
		response.setStatus(status.value());
		response.setContentType("text/plain;charset=UTF-8");
		byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
		response.flushBuffer();
	}

}
