package dev.ballast.web;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.ballast.database.CommitUnconfirmedException;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every refusal into an RFC 9457 problem detail. Schema violations carry an
 * {@code errors} array of {@link FieldError}s; anything unforeseen is logged and answered
 * with a 500 that reveals nothing, which the fuzz tests treat as a bug.
 */
@RestControllerAdvice
class ProblemResponses extends ResponseEntityExceptionHandler {

	private static final Logger log = LoggerFactory.getLogger(ProblemResponses.class);

	static final URI INVALID = URI.create("https://ballast.dev/problems/invalid-request");

	static final URI UNAVAILABLE = URI.create("https://ballast.dev/problems/database-unavailable");

	static final URI BAD_PARAMETER = URI.create("https://ballast.dev/problems/bad-parameter");

	static final URI GUARD = URI.create("https://ballast.dev/problems/guard-breach");

	static final URI CONFLICT = URI.create("https://ballast.dev/problems/conflict");

	static final URI OVERLOADED = URI.create("https://ballast.dev/problems/overloaded");

	static final URI TOO_LARGE = URI.create("https://ballast.dev/problems/body-too-large");

	static final URI MALFORMED = URI.create("https://ballast.dev/problems/malformed-json");

	static final URI NOT_FOUND = URI.create("https://ballast.dev/problems/not-found");

	static final URI STALE = URI.create("https://ballast.dev/problems/precondition-failed");

	static final URI METHOD = URI.create("https://ballast.dev/problems/method-not-allowed");

	static final URI NOT_ACCEPTABLE = URI.create("https://ballast.dev/problems/not-acceptable");

	static final URI MEDIA_TYPE = URI.create("https://ballast.dev/problems/unsupported-media-type");

	static final URI INTERNAL = URI.create("https://ballast.dev/problems/internal-error");

	/**
	 * What the container does not implement (a transfer coding): the client's to change,
	 * not a failure of the registry's.
	 */
	static final URI NOT_IMPLEMENTED = URI.create("https://ballast.dev/problems/not-implemented");

	static final URI REFUSED = URI.create("https://ballast.dev/problems/bad-request");

	@ExceptionHandler
	ResponseEntity<Object> invalid(InvalidRequestException ex) {
		return problem(HttpStatus.UNPROCESSABLE_CONTENT, INVALID, "The request does not match the schema",
				ex.getMessage(), ex.errors());
	}

	@ExceptionHandler
	ResponseEntity<Object> badParameter(BadParameterException ex) {
		return problem(HttpStatus.BAD_REQUEST, BAD_PARAMETER, "A parameter has bad syntax", ex.getMessage(),
				ex.errors());
	}

	/**
	 * Tomcat could not decode the query string: a bad %-escape, or one that is not UTF-8.
	 */
	@ExceptionHandler
	ResponseEntity<Object> badQuery(InvalidParameterException ex) {
		return problem(HttpStatus.BAD_REQUEST, BAD_PARAMETER, "A parameter has bad syntax",
				"the query string cannot be decoded: every % must start an escape of two hex digits that spell "
						+ "UTF-8 (write \" as %22 and % as %25)",
				null);
	}

	@ExceptionHandler
	ResponseEntity<Object> overloaded(OverloadedException ex) {
		return withRetryAfter(
				problem(HttpStatus.SERVICE_UNAVAILABLE, OVERLOADED, "The node is shedding load", ex.getMessage(), null),
				5);
	}

	/**
	 * The write's transaction had not committed when the request stopped waiting: unlike
	 * an outage, something may have been written, so the answer says so.
	 */
	@ExceptionHandler
	ResponseEntity<Object> outcomeUnknown(OutcomeUnknownException ex) {
		log.warn("A write's outcome is unknown to its request: {}", ex.getMessage());
		return withRetryAfter(problem(HttpStatus.SERVICE_UNAVAILABLE, OutcomeUnknownException.TYPE,
				OutcomeUnknownException.TITLE, ex.getMessage(), null), 1);
	}

	/**
	 * The database did not confirm the write's commit: it may have taken effect, or be
	 * lost in a failover; not acknowledged, and not worded as nothing written either.
	 */
	@ExceptionHandler
	ResponseEntity<Object> commitUnconfirmed(CommitUnconfirmedException ex) {
		return outcomeUnknown(OutcomeUnknownException.of(ex));
	}

	@ExceptionHandler
	ResponseEntity<Object> guardBreach(GuardBreachException ex) {
		ResponseEntity<Object> problem = problem(HttpStatus.CONFLICT, GUARD, "A guard would break", ex.getMessage(),
				null);
		Problem body = (Problem) problem.getBody();
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.headers(problem.getHeaders())
			.body(new Problem(body.type(), body.title(), body.status(), body.detail(), body.instance(), null,
					ex.guard()));
	}

	@ExceptionHandler
	ResponseEntity<Object> conflict(ConflictException ex) {
		return problem(HttpStatus.CONFLICT, CONFLICT, "The current state does not allow this", ex.getMessage(), null);
	}

	@ExceptionHandler
	ResponseEntity<Object> notFound(NotFoundException ex) {
		return problem(HttpStatus.NOT_FOUND, NOT_FOUND, "Not found", ex.getMessage(), null);
	}

	@ExceptionHandler
	ResponseEntity<Object> stale(PreconditionFailedException ex) {
		return problem(HttpStatus.PRECONDITION_FAILED, STALE, "Precondition failed", ex.getMessage(), null);
	}

	/**
	 * The database could not serve the request (unreachable, pool exhausted): nothing was
	 * written, and the client should retry, after a jittered delay so that a crowd of
	 * clients does not return at once. A database that is up and refused the request (a
	 * lock or statement timeout, a deadlock) is answered apart ({@link DatabaseRefusal}),
	 * as it must not be worded as an outage.
	 */
	@ExceptionHandler({ TransientDataAccessException.class, DataAccessResourceFailureException.class,
			CannotCreateTransactionException.class, TransactionSystemException.class })
	ResponseEntity<Object> unavailable(RuntimeException ex) {
		Optional<DatabaseRefusal> refusal = DatabaseRefusal.of(ex);
		if (refusal.isPresent()) {
			return withRetryAfter(ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.body(refusal.get().problem(currentPath())), 1);
		}
		log.warn("Database unavailable for a request: {}", NestedExceptionUtils.getMostSpecificCause(ex).getMessage());
		return withRetryAfter(
				problem(HttpStatus.SERVICE_UNAVAILABLE, UNAVAILABLE, "The registry's database is unavailable",
						"nothing was written; retry after the Retry-After delay", null),
				1);
	}

	/**
	 * Retry-After from {@code base} to three times it, so that a crowd of clients does
	 * not come back at once.
	 */
	private static ResponseEntity<Object> withRetryAfter(ResponseEntity<Object> problem, int base) {
		return ResponseEntity.status(problem.getStatusCode())
			.headers(problem.getHeaders())
			.header(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(base))
			.body(problem.getBody());
	}

	/**
	 * PostgreSQL's own codes for "not now" that Spring leaves uncategorized: a lock or
	 * statement timeout (55P03, 57014), a deadlock or a serialization failure (40P01,
	 * 40001), the server shutting down (57P*), out of resources (53*), a broken
	 * connection (08*).
	 */
	@ExceptionHandler
	ResponseEntity<Object> uncategorized(UncategorizedSQLException ex) {
		String state = ex.getSQLException() == null ? null : ex.getSQLException().getSQLState();
		if (state != null
				&& (state.equals("55P03") || state.equals("57014") || state.equals("40P01") || state.equals("40001")
						|| state.startsWith("57P") || state.startsWith("53") || state.startsWith("08"))) {
			return unavailable(ex);
		}
		return unexpected(ex);
	}

	@ExceptionHandler
	ResponseEntity<Object> unexpected(RuntimeException ex) {
		log.error("Unexpected failure while serving a request", ex);
		return problem(HttpStatus.INTERNAL_SERVER_ERROR, INTERNAL, "Internal error",
				"the registry failed to handle this request; it has been logged", null);
	}

	@Override
	protected ResponseEntity<Object> handleHttpMediaTypeNotSupported(HttpMediaTypeNotSupportedException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		List<MediaType> supported = ex.getSupportedMediaTypes();
		// The JSON types the endpoint reads (YAML and the wildcard are converters' reach,
		// not Ballast's API).
		String wanted = supported.stream()
			.filter(type -> !type.isWildcardSubtype()
					&& (type.getSubtype().equals("json") || type.getSubtype().endsWith("+json")))
			.map(MediaType::toString)
			.distinct()
			.collect(Collectors.joining(" or "));
		if (wanted.isEmpty()) {
			wanted = MediaType.APPLICATION_JSON_VALUE;
		}
		String sent = ex.getContentType() == null ? "no Content-Type"
				: "Content-Type " + ex.getContentType().getType() + "/" + ex.getContentType().getSubtype();
		ResponseEntity<Object> problem = problem(HttpStatus.UNSUPPORTED_MEDIA_TYPE, MEDIA_TYPE,
				"Unsupported Content-Type", "send Content-Type: %s; got %s".formatted(wanted, sent), null);
		return ResponseEntity.status(problem.getStatusCode())
			.headers(problem.getHeaders())
			.headers(headers)
			.body(problem.getBody());
	}

	@Override
	protected ResponseEntity<Object> handleHttpMediaTypeNotAcceptable(HttpMediaTypeNotAcceptableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		String offered = ex.getSupportedMediaTypes()
			.stream()
			.map(MediaType::toString)
			.distinct()
			.collect(Collectors.joining(", "));
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		return problem(HttpStatus.NOT_ACCEPTABLE, NOT_ACCEPTABLE, "No acceptable representation",
				"this endpoint answers %s; send an Accept header that allows one of them%s".formatted(offered,
						accept == null ? "" : "; got Accept: " + abbreviate(accept)),
				null);
	}

	@Override
	protected ResponseEntity<Object> handleHttpRequestMethodNotSupported(HttpRequestMethodNotSupportedException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		String allowed = ex.getSupportedHttpMethods() == null ? ""
				: ex.getSupportedHttpMethods()
					.stream()
					.map(HttpMethod::name)
					.sorted()
					.collect(Collectors.joining(", "));
		ResponseEntity<Object> problem = problem(HttpStatus.METHOD_NOT_ALLOWED, METHOD, "Method not allowed",
				"%s is not served here; use %s".formatted(ex.getMethod(), allowed), null);
		return ResponseEntity.status(problem.getStatusCode())
			.headers(problem.getHeaders())
			.headers(headers)
			.body(problem.getBody());
	}

	@Override
	protected ResponseEntity<Object> handleNoResourceFoundException(NoResourceFoundException ex, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		return problem(HttpStatus.NOT_FOUND, NOT_FOUND, "Nothing is served here",
				"the registry serves nothing at %s; its endpoints are listed in /v3/api-docs"
					.formatted(request instanceof ServletWebRequest servlet ? servlet.getRequest().getRequestURI()
							: "this path"),
				null);
	}

	/**
	 * Every other refusal Spring MVC raises itself (a missing parameter, a type
	 * mismatch): a Ballast type, and Spring's detail, which names the parameter.
	 */
	@Override
	protected ResponseEntity<Object> handleExceptionInternal(Exception ex, Object body, HttpHeaders headers,
			HttpStatusCode statusCode, WebRequest request) {
		ResponseEntity<Object> answer = super.handleExceptionInternal(ex, body, headers, statusCode, request);
		if (answer != null && answer.getBody() instanceof ProblemDetail detail
				&& (detail.getType() == null || "about:blank".equals(detail.getType().toString()))) {
			detail.setType(switch (statusCode.value()) {
				case 404 -> NOT_FOUND;
				case 405 -> METHOD;
				case 406 -> NOT_ACCEPTABLE;
				case 415 -> MEDIA_TYPE;
				default -> statusCode.is5xxServerError() ? INTERNAL : REFUSED;
			});
		}
		return answer;
	}

	@Override
	protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		Throwable cause = ex.getMostSpecificCause();
		if (NestedExceptionUtils.getRootCause(ex) instanceof BodyLimit.TooLarge
				|| cause instanceof BodyLimit.TooLarge) {
			return problem(HttpStatus.CONTENT_TOO_LARGE, TOO_LARGE, "The body is too large",
					"request bodies are at most %d bytes".formatted(BodyLimit.MAX_BYTES), null);
		}
		if (CutBody.isCauseOf(ex)) {
			return withRetryAfter(
					problem(HttpStatus.SERVICE_UNAVAILABLE, CutBody.TYPE, CutBody.TITLE, CutBody.DETAIL, null), 1);
		}
		if (cause instanceof StreamReadException || !(cause instanceof JacksonException)) {
			return problem(HttpStatus.BAD_REQUEST, MALFORMED, "The body is not valid JSON", malformed(cause), null);
		}
		return problem(HttpStatus.UNPROCESSABLE_CONTENT, INVALID, "The request does not match the schema",
				parserWords(((JacksonException) cause).getOriginalMessage()), null);
	}

	private static String malformed(Throwable cause) {
		if (cause instanceof JacksonException json) {
			String message = json.getOriginalMessage();
			var location = json.getLocation();
			String where = location == null ? ""
					: " at line %d, column %d".formatted(location.getLineNr(), location.getColumnNr());
			return "the body is not valid JSON: " + abbreviate(parserWords(message)) + where;
		}
		return "the body is missing or is not valid JSON";
	}

	/**
	 * Jackson's message without what only a Jackson user would read: the source
	 * description, the start marker's location and class names.
	 */
	static String parserWords(String message) {
		String words = message == null ? "" : message.lines().findFirst().orElse("");
		int internals = indexOfAny(words, " (start marker", " at [Source", "[Source:", " (for ", " (through reference");
		if (internals >= 0) {
			words = words.substring(0, internals);
		}
		words = words.replace("expected close marker for Object", "expected } to close an object")
			.replace("expected close marker for Array", "expected ] to close an array");
		words = words.replaceAll("\\b(?:[a-z][a-z0-9_]*\\.)+([A-Z][A-Za-z0-9_$]*)", "$1").strip();
		if (words.endsWith(":")) {
			words = words.substring(0, words.length() - 1);
		}
		if (words.isEmpty()) {
			return "unreadable input";
		}
		return Character.toLowerCase(words.charAt(0)) + words.substring(1);
	}

	private static int indexOfAny(String text, String... needles) {
		int first = -1;
		for (String needle : needles) {
			int at = text.indexOf(needle);
			if (at >= 0 && (first < 0 || at < first)) {
				first = at;
			}
		}
		return first;
	}

	private static String abbreviate(String message) {
		String firstLine = message == null ? "" : message.lines().findFirst().orElse("");
		return firstLine.length() <= 200 ? firstLine : firstLine.substring(0, 200) + "…";
	}

	private static ResponseEntity<Object> problem(HttpStatus status, URI type, String title, String detail,
			List<FieldError> errors) {
		Problem problem = new Problem(type == null ? "about:blank" : type.toString(), title, status.value(), detail,
				currentPath(), errors);
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

	private static String currentPath() {
		return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet
				? servlet.getRequest().getRequestURI() : null;
	}

}
