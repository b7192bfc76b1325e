package dev.ballast.web;

import java.io.IOException;
import java.util.Collections;
import java.util.Set;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Media types that cannot be parsed are refused before anything reads them: a write's
 * Content-Type with 415, any request's Accept with 406. Found by the fuzzer: for some
 * malformed values (unbalanced quotes, {@code "!!G!)%%s/-}) Spring's parser throws an
 * index error instead of its own exception, from its form filter, the mapping's consumes
 * condition, the body reader and even the resolver that picks the handler for an earlier
 * exception alike, which was answered 500. After this filter, every media type Spring
 * parses parses.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 5)
class UnreadableMediaTypes extends OncePerRequestFilter {

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
		if (!acceptReadable(request)) {
			new Problem(ProblemResponses.NOT_ACCEPTABLE.toString(), "No acceptable representation", 406,
					"the Accept header cannot be read; send Accept: application/json, or no Accept header",
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

	/** Every Accept header the request carries, read together as Spring reads them. */
	private static boolean acceptReadable(HttpServletRequest request) {
		try {
			MediaType.parseMediaTypes(Collections.list(request.getHeaders(HttpHeaders.ACCEPT)));
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

}
