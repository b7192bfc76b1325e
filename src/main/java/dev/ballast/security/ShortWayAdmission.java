package dev.ballast.security;

import java.util.List;
import java.util.Optional;

import dev.ballast.web.ChainDecision;
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
 * The filter chain's decision on a request that a short way answers before the chain runs
 * ({@link ChainDecision}), taken as the chain takes it: the same bearer token, the same
 * access rule ({@link AccessRules#permits}) and, for a write, the same per-token write
 * allowance, without building a security context. It only ever admits: a request it does
 * not admit goes on through the chain, which refuses it with the usual 401, 403 or 429.
 */
@Component
class ShortWayAdmission implements ChainDecision {

	/** Spring Security's default response headers, as the chain writes them. */
	private static final List<HeaderWriter> HEADERS = List.of(new XContentTypeOptionsHeaderWriter(),
			new XXssProtectionHeaderWriter(), new CacheControlHeadersWriter(), new HstsHeaderWriter(),
			new XFrameOptionsHeaderWriter());

	/** Set on a request whose write this class took from its token's allowance. */
	private static final String TAKEN = ShortWayAdmission.class.getName() + ".taken";

	private final Tokens tokens;

	private final WriteBuckets buckets;

	ShortWayAdmission(Tokens tokens, WriteBuckets buckets) {
		this.tokens = tokens;
		this.buckets = buckets;
	}

	@Override
	public Optional<Authentication> admit(HttpServletRequest request) {
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (header == null) {
			return Optional.empty();
		}
		Optional<Caller> caller = BearerTokens.secret(header).flatMap(tokens::authenticate);
		if (caller.isEmpty() || !AccessRules.permits(caller.get(), request)) {
			return Optional.empty();
		}
		if (WriteLimits.mutating(request)) {
			if (!buckets.tryTake(caller.get().token())) {
				return Optional.empty();
			}
			request.setAttribute(TAKEN, Boolean.TRUE);
		}
		return Optional.of(caller.get());
	}

	/** Whether this class took the request's write from its allowance already. */
	static boolean charged(HttpServletRequest request) {
		return request.getAttribute(TAKEN) != null;
	}

	@Override
	public void writeHeaders(HttpServletRequest request, HttpServletResponse response) {
		for (HeaderWriter writer : HEADERS) {
			writer.writeHeaders(request, response);
		}
	}

}
