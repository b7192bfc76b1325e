package dev.ballast.security;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

import dev.ballast.web.Problem;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Authenticates {@code Authorization: Bearer <token>} against the tokens held in memory.
 * A request without the header goes on unauthenticated (the access rules then ask for a
 * token); a header that is malformed, or names a token that is unknown, deleted or
 * expired, is refused with 401 at once, even where no token is needed, because a client
 * sending a dead token wants to know.
 */
final class BearerTokens extends OncePerRequestFilter {

	private static final String CHALLENGE = "Bearer realm=\"ballast\"";

	private static final String SCHEME = "bearer ";

	private static final String CONSUL_TOKEN = "X-Consul-Token";

	private static final Pattern CONSUL_PATHS = Pattern.compile("/v1/(agent|catalog|health|status)/");

	/** For a request that sent no token. */
	static void missing(HttpServletRequest request, HttpServletResponse response) throws IOException {
		unauthenticated(request, response, CHALLENGE,
				"this call needs a token: send \"Authorization: Bearer <token>\"");
	}

	private final Tokens tokens;

	BearerTokens(Tokens tokens) {
		this.tokens = tokens;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String header = request.getHeader(HttpHeaders.AUTHORIZATION);
		Optional<String> consul = header == null ? consulToken(request) : Optional.empty();
		if (header == null && consul.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		Optional<String> secret = header == null ? consul : secret(header);
		Optional<Token> token = secret.flatMap(tokens::authenticate);
		if (token.isEmpty()) {
			refuse(request, response, secret.isEmpty() ? "the Authorization header must be \"Bearer <token>\""
					: "the bearer token is unknown, deleted or expired");
			return;
		}
		SecurityContext context = SecurityContextHolder.createEmptyContext();
		context.setAuthentication(new Caller(token.get()));
		SecurityContextHolder.setContext(context);
		try {
			chain.doFilter(request, response);
		}
		finally {
			SecurityContextHolder.clearContext();
		}
	}

	/**
	 * Consul's clients send their ACL token as {@code X-Consul-Token} or {@code ?token=};
	 * on the Consul-compatible paths either is a bearer token. An empty one counts as
	 * none, as Consul's anonymous token. Elsewhere neither is read, so that no token
	 * travels in the query string of Ballast's own API.
	 */
	private static Optional<String> consulToken(HttpServletRequest request) {
		if (!CONSUL_PATHS.matcher(request.getRequestURI()).lookingAt()) {
			return Optional.empty();
		}
		String header = request.getHeader(CONSUL_TOKEN);
		if (header != null && !header.isBlank()) {
			return Optional.of(header.strip());
		}
		String query = request.getQueryString();
		if (query == null) {
			return Optional.empty();
		}
		for (String pair : query.split("&")) {
			if (pair.startsWith("token=") && pair.length() > "token=".length()) {
				try {
					String token = URLDecoder.decode(pair.substring("token=".length()), StandardCharsets.UTF_8);
					return token.isBlank() ? Optional.empty() : Optional.of(token.strip());
				}
				catch (IllegalArgumentException ex) {
					// A token that cannot be decoded is no token anyone was given.
					return Optional.of(pair);
				}
			}
		}
		return Optional.empty();
	}

	private static Optional<String> secret(String header) {
		if (header.length() <= SCHEME.length()
				|| !header.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
			return Optional.empty();
		}
		String secret = header.substring(SCHEME.length()).strip();
		return secret.isEmpty() ? Optional.empty() : Optional.of(secret);
	}

	private static void refuse(HttpServletRequest request, HttpServletResponse response, String detail)
			throws IOException {
		unauthenticated(request, response, CHALLENGE + ", error=\"invalid_token\"", detail);
	}

	/** 401: the challenge, and a problem detail saying what was wrong. */
	private static void unauthenticated(HttpServletRequest request, HttpServletResponse response, String challenge,
			String detail) throws IOException {
		response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
		new Problem("https://ballast.dev/problems/unauthenticated", "A valid bearer token is needed", 401, detail,
				request.getRequestURI(), null)
			.send(response);
	}

}
