package dev.ballast.web;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;

import jakarta.servlet.http.HttpServletResponse;
import org.apache.coyote.BadRequestException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * A request whose body stopped coming before its end: the connection closed or failed
 * while the body was read (a node that stops cuts the bodies it is still reading, a
 * client or proxy that dies cuts its own). Tomcat answers every failed body read with
 * 400, as if the client had sent something malformed; but nothing malformed arrived, only
 * less than was declared, and nothing was written, so the answer is 503 with a
 * {@code Retry-After}, as for the node's other "not now" answers. A body whose framing is
 * malformed (a bad chunk header, Tomcat's {@link BadRequestException}) stays 400, and one
 * that stalled past the connection timeout stays Tomcat's 408.
 */
final class CutBody {

	static final URI TYPE = URI.create("https://ballast.dev/problems/incomplete-body");

	static final String TITLE = "The body did not arrive whole";

	static final String DETAIL = "the connection failed or closed before the whole body arrived; nothing was "
			+ "written: send the request again after the Retry-After delay";

	private CutBody() {
	}

	/** Whether {@code failure}, or one of its causes, is a body read that was cut off. */
	static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BadRequestException || cause instanceof SocketTimeoutException
					|| cause instanceof BodyLimit.TooLarge) {
				return false;
			}
			if (cause instanceof IOException) {
				return true;
			}
		}
		return false;
	}

	/** The 503 problem for a cut body. */
	static Problem problem(String path) {
		return new Problem(TYPE.toString(), TITLE, HttpStatus.SERVICE_UNAVAILABLE.value(), DETAIL, path, null);
	}

	/** Answers a cut body with its 503, outside Spring MVC. */
	static void send(HttpServletResponse response, String path) throws IOException {
		response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(1));
		problem(path).send(response);
	}

}
