package dev.ballast.web;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

import dev.ballast.database.RolledBack;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * The answer to a request that the database, up and answering, refused
 * ({@link RolledBack}): one of its statements ran into the session's own limits, or
 * PostgreSQL picked its transaction to break a collision with another. Its transaction
 * was rolled back, so nothing was written, and a retry a moment later is likely to pass:
 * a 503 with a jittered Retry-After and a problem type of its own, never "database
 * unavailable". {@code ProblemResponses} answers it inside Spring MVC, a {@link ShortWay}
 * with {@link #send}, in the same words.
 */
public final class DatabaseRefusal {

	private static final URI TIMED_OUT = URI.create("https://ballast.dev/problems/database-timeout");

	private static final URI CONFLICT = URI.create("https://ballast.dev/problems/database-conflict");

	private static final String TIMED_OUT_TITLE = "A database wait timed out";

	private static final String CONFLICT_TITLE = "A concurrent transaction got in the way";

	private static final Logger log = LoggerFactory.getLogger(DatabaseRefusal.class);

	private static final String OUTCOME = "; the database is up, nothing was written; retry after the Retry-After delay";

	private final URI type;

	private final String title;

	private final String detail;

	private final String cause;

	private DatabaseRefusal(URI type, String title, String detail, Throwable failure) {
		this.type = type;
		this.title = title;
		this.detail = detail + OUTCOME;
		this.cause = NestedExceptionUtils.getMostSpecificCause(failure).getMessage();
	}

	/**
	 * The answer to {@code failure} when the database refused it while up; empty for
	 * anything else (an outage, a refusal of the registry's own).
	 */
	public static Optional<DatabaseRefusal> of(Throwable failure) {
		return RolledBack.causing(failure).map(reason -> switch (reason) {
			case LOCK_TIMEOUT -> new DatabaseRefusal(TIMED_OUT, TIMED_OUT_TITLE,
					"this request waited longer than the database's lock_timeout for a lock that another write holds",
					failure);
			case STATEMENT_TIMEOUT -> new DatabaseRefusal(TIMED_OUT, TIMED_OUT_TITLE,
					"a statement of this request ran past the database's statement_timeout", failure);
			case DEADLOCK -> new DatabaseRefusal(CONFLICT, CONFLICT_TITLE,
					"this request's transaction and another each waited for a lock the other held (a deadlock), "
							+ "and the database rolled this one back",
					failure);
			case SERIALIZATION_FAILURE -> new DatabaseRefusal(CONFLICT, CONFLICT_TITLE,
					"this request's transaction could not be ordered with a concurrent one (a serialization "
							+ "failure), and the database rolled it back",
					failure);
		});
	}

	/** The problem detail for a request to {@code path}; logs the refusal. */
	Problem problem(String path) {
		log.warn("The database refused a request ({}): {}", type, cause);
		return new Problem(type.toString(), title, HttpStatus.SERVICE_UNAVAILABLE.value(), detail, path, null);
	}

	/**
	 * Answers from outside Spring MVC (a {@link ShortWay}), as {@code ProblemResponses}
	 * answers inside: a short way must not send the request the full way, which would
	 * wait for the same lock or run into the same collision a second time.
	 */
	public void send(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.seconds(1));
		problem(request.getRequestURI()).send(response);
	}

}
