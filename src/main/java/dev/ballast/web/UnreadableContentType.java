package dev.ballast.web;

import java.io.IOException;
import java.util.Set;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A write whose Content-Type cannot be parsed is refused with 415 before anything reads
 * it. Found by the fuzzer: for some malformed values (unbalanced quotes) Spring's parser
 * throws an index error instead of its own exception, from its form filter, the mapping's
 * consumes condition and the body reader alike, which was answered 500.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 5)
class UnreadableContentType extends OncePerRequestFilter {

	private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String contentType = request.getContentType();
		if (contentType != null && WRITES.contains(request.getMethod()) && !readable(contentType)) {
			new Problem(ProblemResponses.MEDIA_TYPE.toString(), "Unsupported Content-Type", 415,
					"the Content-Type header cannot be read; send Content-Type: application/json "
							+ "(application/merge-patch+json for a PATCH)",
					request.getRequestURI(), null)
				.send(response);
			return;
		}
		chain.doFilter(request, response);
	}

	private static boolean readable(String contentType) {
		try {
			MediaType.parseMediaType(contentType);
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

}
