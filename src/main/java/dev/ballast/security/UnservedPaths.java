package dev.ballast.security;

import java.io.IOException;
import java.util.List;

import dev.ballast.web.Problem;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A path no access rule names is told it is not served, with or without a token (valid,
 * unknown, Consul's or Ballast's), before any token is read: no token would change the
 * answer, and a Consul client sending its own {@code X-Consul-Token} to a path Ballast
 * does not serve ({@code /v1/agent/members}) must read "not served", not "a valid bearer
 * token is needed". The status is 404, which Consul's clients take for "no such thing":
 * Consul's KV store in particular, whose optional readers (Spring Cloud Consul Config,
 * consul-template with defaults) carry on without it.
 */
final class UnservedPaths extends OncePerRequestFilter {

	static final String KV_TYPE = "https://ballast.dev/problems/not-implemented";

	static final String NOT_SERVED_TYPE = "https://ballast.dev/problems/not-served";

	/**
	 * The path prefixes of Consul's HTTP API, whose unserved paths docs/consul.md lists.
	 */
	private static final List<String> CONSUL = List.of("/v1/agent", "/v1/catalog", "/v1/health", "/v1/status",
			"/v1/acl", "/v1/session", "/v1/event", "/v1/query", "/v1/txn", "/v1/coordinate", "/v1/operator",
			"/v1/connect", "/v1/config", "/v1/snapshot", "/v1/internal", "/v1/discovery-chain", "/v1/namespace",
			"/v1/namespaces", "/v1/partition", "/v1/partitions", "/v1/peering", "/v1/peerings", "/v1/exported-services",
			"/v1/imported-services", "/v1/lock", "/v1/semaphore");

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		if (!AccessRules.methodsAt(request).isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		String path = request.getRequestURI();
		String call = request.getMethod() + " " + path;
		if (under(path, "/v1/kv")) {
			new Problem(KV_TYPE, "Ballast serves no KV store", HttpServletResponse.SC_NOT_FOUND,
					("Ballast is a service registry and serves no KV store: %s is not implemented (nor are Consul's "
							+ "sessions and events). Keep configuration elsewhere; Spring Cloud Consul apps set "
							+ "spring.cloud.consul.config.enabled=false (docs/consul.md)")
						.formatted(call),
					path, null)
				.send(response);
		}
		else if (CONSUL.stream().anyMatch(prefix -> under(path, prefix))) {
			new Problem(NOT_SERVED_TYPE, "Not served", HttpServletResponse.SC_NOT_FOUND,
					("Ballast does not serve %s: it answers the part of Consul's API that service discovery uses "
							+ "(docs/consul.md lists every Consul path as served or not)")
						.formatted(call),
					path, null)
				.send(response);
		}
		else {
			new Problem("https://ballast.dev/problems/not-found", "Nothing is served here",
					HttpServletResponse.SC_NOT_FOUND,
					"the registry serves nothing at %s; its endpoints are listed in /v3/api-docs".formatted(path), path,
					null)
				.send(response);
		}
	}

	private static boolean under(String path, String prefix) {
		return path.equals(prefix) || path.startsWith(prefix + "/");
	}

}
