package dev.ballast.security;

import java.io.IOException;

import dev.ballast.web.Problem;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Consul's KV store ({@code /v1/kv} and everything under it), which Ballast does not
 * serve: every call there is told so, with or without a token (valid, unknown or
 * Consul's), before any token is read, as no token would change the answer. The status is
 * 404 because that is what Consul's clients take for "no such key": a client that reads
 * optional configuration (Spring Cloud Consul Config, consul-template with defaults)
 * carries on without it, and one that writes shows this answer's text.
 */
final class NoKeyValueStore extends OncePerRequestFilter {

	static final String TYPE = "https://ballast.dev/problems/not-implemented";

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		String path = request.getRequestURI();
		if (!path.equals("/v1/kv") && !path.startsWith("/v1/kv/")) {
			chain.doFilter(request, response);
			return;
		}
		new Problem(TYPE, "Ballast serves no KV store", HttpServletResponse.SC_NOT_FOUND,
				("Ballast is a service registry and serves no KV store: %s %s is not implemented (nor are Consul's "
						+ "sessions and events). Keep configuration elsewhere; Spring Cloud Consul apps set "
						+ "spring.cloud.consul.config.enabled=false (docs/consul.md)")
					.formatted(request.getMethod(), path),
				path, null)
			.send(response);
	}

}
