package dev.ballast.web;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * {@code Idempotency-Key} on POSTs: the first answer (below 500) to a caller's key,
 * method and path is kept for a day and replayed, with
 * {@code Idempotency-Replayed: true}, when the same request comes again; the same key
 * with another body is refused with 422. The mode endpoints are idempotent by state as
 * well, so a retry racing its original, or one after a crash between the write and
 * keeping its answer, still changes nothing twice. Answers from {@code /v1/tokens} are
 * never kept: they hold a secret.
 */
@Component
class IdempotencyKeys extends OncePerRequestFilter {

	static final String HEADER = "Idempotency-Key";

	private static final Pattern VALID = Pattern.compile("[\\x21-\\x7e]{1,255}");

	/**
	 * The largest body whose answer is kept; larger ones are refused by the limits
	 * anyway.
	 */
	private static final int MAX_BODY = 64 * 1024;

	static final Duration KEPT = Duration.ofHours(24);

	private final JdbcClient jdbc;

	private final Clock clock;

	IdempotencyKeys(JdbcClient jdbc, Clock clock) {
		this.jdbc = jdbc;
		this.clock = clock;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		// A new token's answer holds its secret, which is never stored.
		return !"POST".equals(request.getMethod()) || request.getHeader(HEADER) == null
				|| !request.getRequestURI().startsWith("/v1/") || request.getRequestURI().startsWith("/v1/tokens");
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String key = request.getHeader(HEADER);
		if (!VALID.matcher(key).matches()) {
			refuse(request, response, 400, "Idempotency-Key must be 1 to 255 visible ASCII characters");
			return;
		}
		byte[] body;
		try {
			body = request.getInputStream().readNBytes(MAX_BODY + 1);
		}
		catch (BodyLimit.TooLarge ex) {
			BodyLimit.refuse(request, response);
			return;
		}
		if (body.length > MAX_BODY) {
			BodyLimit.refuse(request, response);
			return;
		}
		byte[] hash = sha256(body);
		String path = request.getRequestURI();
		String caller = request.getUserPrincipal() == null ? "" : request.getUserPrincipal().getName();
		Optional<Answer> kept = find(caller, key, path);
		if (kept.isPresent()) {
			replay(request, response, kept.get(), hash);
			return;
		}
		ContentCachingResponseWrapper recorded = new ContentCachingResponseWrapper(response);
		chain.doFilter(ReadBody.replaying(request, body), recorded);
		if (recorded.getStatus() < 500) {
			keep(caller, key, path, hash, recorded);
		}
		recorded.copyBodyToResponse();
	}

	private void replay(HttpServletRequest request, HttpServletResponse response, Answer answer, byte[] hash)
			throws IOException {
		if (!Arrays.equals(answer.requestHash(), hash)) {
			refuse(request, response, 422,
					"this Idempotency-Key was used for a request with another body; use a new key for a new request");
			return;
		}
		response.setStatus(answer.status());
		if (answer.contentType() != null) {
			response.setContentType(answer.contentType());
		}
		response.setHeader("Idempotency-Replayed", "true");
		response.getOutputStream().write(answer.body());
	}

	private Optional<Answer> find(String caller, String key, String path) {
		return jdbc.sql("""
				SELECT request_hash, status, content_type, body FROM idempotent_answer
				 WHERE caller = ? AND key = ? AND method = 'POST' AND path = ? AND created_at > ?""")
			.params(caller, key, path, Timestamp.from(clock.instant().minus(KEPT)))
			.query((rs, row) -> new Answer(rs.getBytes(1), rs.getInt(2), rs.getString(3), rs.getBytes(4)))
			.optional();
	}

	private void keep(String caller, String key, String path, byte[] hash, ContentCachingResponseWrapper recorded) {
		try {
			jdbc.sql(
					"""
							INSERT INTO idempotent_answer (caller, key, method, path, request_hash, status, content_type, body, created_at)
							VALUES (?, ?, 'POST', ?, ?, ?, ?, ?, ?)
							ON CONFLICT (caller, key, method, path) DO UPDATE SET request_hash = EXCLUDED.request_hash,
							       status = EXCLUDED.status, content_type = EXCLUDED.content_type, body = EXCLUDED.body,
							       created_at = EXCLUDED.created_at
							 WHERE idempotent_answer.created_at <= ?""")
				.params(caller, key, path, hash, recorded.getStatus(), recorded.getContentType(),
						recorded.getContentAsByteArray(), Timestamp.from(clock.instant()),
						Timestamp.from(clock.instant().minus(KEPT)))
				.update();
		}
		catch (DataAccessException ex) {
			// The request itself succeeded; a retry without a kept answer is still
			// idempotent by state.
			logger.warn("Answer to Idempotency-Key not kept: " + ex.getMessage());
		}
	}

	private static void refuse(HttpServletRequest request, HttpServletResponse response, int status, String detail)
			throws IOException {
		String title = status == 422 ? "The request does not match the schema" : "Bad Idempotency-Key request";
		new Problem("https://ballast.dev/problems/idempotency-key", title, status, detail, request.getRequestURI(),
				null)
			.send(response);
	}

	private static byte[] sha256(byte[] body) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(body);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("every JDK has SHA-256", ex);
		}
	}

	private record Answer(byte[] requestHash, int status, String contentType, byte[] body) {
	}

}
