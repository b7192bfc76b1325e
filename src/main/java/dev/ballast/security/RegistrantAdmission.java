package dev.ballast.security;

import java.util.List;
import java.util.Optional;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.header.HeaderWriter;
import org.springframework.security.web.header.writers.CacheControlHeadersWriter;
import org.springframework.security.web.header.writers.HstsHeaderWriter;
import org.springframework.security.web.header.writers.XContentTypeOptionsHeaderWriter;
import org.springframework.security.web.header.writers.XXssProtectionHeaderWriter;
import org.springframework.security.web.header.writers.frameoptions.XFrameOptionsHeaderWriter;
import org.springframework.stereotype.Component;

/**
 * The filter chain's decision on a registrant's write, for a path that answers before the
 * chain runs (the heartbeat's): the same bearer token, the same service scope
 * ({@link Need#REGISTRANT}) and the same per-token write allowance, without building a
 * security context. It only ever admits: a request it does not admit goes on through the
 * chain, which refuses it with the usual 401, 403 or 429.
 */
@Component
public class RegistrantAdmission {

	/** Spring Security's default response headers, as the chain writes them. */
	private static final List<HeaderWriter> HEADERS = List.of(new XContentTypeOptionsHeaderWriter(),
			new XXssProtectionHeaderWriter(), new CacheControlHeadersWriter(), new HstsHeaderWriter(),
			new XFrameOptionsHeaderWriter());

	/** Set on a request whose write this class took from its token's allowance. */
	private static final String TAKEN = RegistrantAdmission.class.getName() + ".taken";

	private final Tokens tokens;

	private final WriteBuckets buckets;

	RegistrantAdmission(Tokens tokens, WriteBuckets buckets) {
		this.tokens = tokens;
		this.buckets = buckets;
	}

	/**
	 * Whether the request's token may write in {@code service} now; when it may, one
	 * write is taken from its allowance.
	 */
	public boolean admits(HttpServletRequest request, String service) {
		return admit(request, service).isPresent();
	}

	/**
	 * Like {@link #admits}, for a short way that then writes on the caller's behalf: the
	 * caller, for the security context its audit entry reads, or empty. A request
	 * admitted here and then handed to the chain after all is not charged twice.
	 */
	public Optional<Authentication> admit(HttpServletRequest request, String service) {
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null) {
			return Optional.empty();
		}
		Optional<Caller> caller = BearerTokens.secret(header).flatMap(tokens::authenticate);
		if (caller.isPresent() && Need.REGISTRANT.metBy(caller.get().token(), service)
				&& buckets.tryTake(caller.get().token())) {
			request.setAttribute(TAKEN, Boolean.TRUE);
			return Optional.of(caller.get());
		}
		return Optional.empty();
	}

	/** Whether this class took the request's write from its allowance already. */
	static boolean charged(HttpServletRequest request) {
		return request.getAttribute(TAKEN) != null;
	}

	/** Writes the headers the chain adds to every answer. */
	public void writeHeaders(HttpServletRequest request, HttpServletResponse response) {
		for (HeaderWriter writer : HEADERS) {
			writer.writeHeaders(request, response);
		}
	}

}
