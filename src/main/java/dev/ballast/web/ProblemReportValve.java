package dev.ballast.web;

import java.io.IOException;
import java.io.Writer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Tomcat's error report, written as a Ballast problem instead of an HTML page: what
 * Tomcat answers itself, before any servlet runs (a request line or header it cannot
 * read, an encoded slash, headers beyond {@code server.max-http-request-header-size}).
 * Public with a public constructor because Tomcat's host creates it from its class name.
 */
public final class ProblemReportValve extends ErrorReportValve {

	public ProblemReportValve() {
		setShowReport(false);
		setShowServerInfo(false);
	}

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		// Tomcat's own conditions: an error, nothing written yet, reported once, and a
		// connection that can still be written to.
		if (response.getStatus() < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		AtomicBoolean writable = new AtomicBoolean(false);
		response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, writable);
		if (!writable.get()) {
			return;
		}
		HttpStatus status = HttpStatus.resolve(response.getStatus());
		if (status == null) {
			status = response.getStatus() >= 500 ? HttpStatus.INTERNAL_SERVER_ERROR : HttpStatus.BAD_REQUEST;
		}
		String path = request.getRequestURI();
		Problem problem = ContainerProblems.problem(status, path == null ? "" : path, detail(status, throwable));
		// A failed body read is on the request even when the exception that left the
		// application is not.
		if (status == HttpStatus.BAD_REQUEST && (CutBody.isCauseOf(throwable)
				|| CutBody.isCauseOf(request.getCoyoteRequest().getErrorException()))) {
			response.setStatus(HttpStatus.SERVICE_UNAVAILABLE.value());
			response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(1));
			problem = CutBody.problem(path);
		}
		try {
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("UTF-8");
			Writer writer = response.getReporter();
			if (writer != null) {
				writer.write(problem.json());
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// The client is gone or the answer began: nothing more can be said.
		}
	}

	private static String detail(HttpStatus status, Throwable throwable) {
		String message = throwable == null || throwable.getMessage() == null ? ""
				: throwable.getMessage().toLowerCase(Locale.ROOT);
		if (message.contains("too large") || status == HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE) {
			return "the request line and headers are larger than this registry reads "
					+ "(server.max-http-request-header-size, 8 KiB by default): send a shorter URL or fewer headers";
		}
		if (message.contains("number of headers")) {
			return "the request has more headers than this registry reads (Tomcat's maxHeaderCount, 100 by default): "
					+ "send fewer headers";
		}
		if (status == HttpStatus.NOT_IMPLEMENTED) {
			return "the request needs what this registry does not implement, such as a Transfer-Encoding other than "
					+ "chunked: send the body with Content-Length or with Transfer-Encoding: chunked";
		}
		if (status == HttpStatus.BAD_REQUEST) {
			return "the request line or a header cannot be read: a path is ASCII without spaces or control "
					+ "characters, every % starts two hex digits, and / or \\ are not encoded (%2F, %5C)";
		}
		return "the request is refused before it reaches the registry: "
				+ status.getReasonPhrase().toLowerCase(Locale.ROOT);
	}

}
