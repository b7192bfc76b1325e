package dev.ballast.web;

import java.io.IOException;
import java.net.URI;

import dev.ballast.database.CommitUnconfirmedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * A write was taken into a transaction that had not committed when the request stopped
 * waiting for it: it may still commit, or may not. Answered with 503 and a jittered
 * Retry-After like an outage, but without an outage's "nothing was written": the client
 * reads the instance to learn the outcome, or repeats the write, which is idempotent.
 */
public final class OutcomeUnknownException extends RuntimeException {

	static final URI TYPE = URI.create("https://ballast.dev/problems/outcome-unknown");

	static final String TITLE = "The write's outcome is not known yet";

	public OutcomeUnknownException(String detail) {
		super(detail, null, false, false);
	}

	/**
	 * The answer to a write whose commit the database did not confirm: it may have taken
	 * effect, or may be lost in a failover.
	 */
	public static OutcomeUnknownException of(CommitUnconfirmedException unconfirmed) {
		return new OutcomeUnknownException(unconfirmed.getMessage()
				+ "; read the instance to see whether it did, or send the write again with the same Idempotency-Key");
	}

	/**
	 * Answers with this problem from outside Spring MVC (a {@link ShortWay}), as
	 * {@code ProblemResponses} answers it inside: a short way must not send the write the
	 * full way again, which would queue it a second time and answer for that one.
	 */
	public void send(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(1));
		new Problem(TYPE.toString(), TITLE, HttpStatus.SERVICE_UNAVAILABLE.value(), getMessage(),
				request.getRequestURI(), null)
			.send(response);
	}

}
