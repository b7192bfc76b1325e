package dev.ballast.security;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.server.PathContainer;
import org.springframework.security.core.Authentication;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Which calls need which role, written out call by call. A call no rule names is refused
 * to everyone, so a new endpoint stays closed until it is given a rule here (and the role
 * matrix test, which lists every endpoint, fails until it is).
 */
final class AccessRules {

	private static final Set<String> READ = Set.of("GET", "HEAD");

	private static final List<Rule> RULES = List.of(
			// Probes and the Swagger UI page. The OpenAPI document is open too: the page
			// needs it before its Authorize button exists, and it is the published
			// contract, holding no registry data.
			rule(READ, "/actuator/health", Need.NOTHING), rule(READ, "/actuator/health/**", Need.NOTHING),
			rule(READ, "/swagger-ui.html", Need.NOTHING), rule(READ, "/swagger-ui/**", Need.NOTHING),
			rule(READ, "/v3/api-docs", Need.NOTHING), rule(READ, "/v3/api-docs/**", Need.NOTHING),
			// The console's static page and assets (no registry data; its API calls carry
			// the operator's token), and the root, which redirects to it.
			rule(READ, "/", Need.NOTHING), rule(READ, "/console", Need.NOTHING),
			rule(READ, "/console/**", Need.NOTHING), rule(READ, "/actuator/prometheus", Need.READER),

			rule(READ, "/v1/services", Need.READER), rule(READ, "/v1/services/{service}", Need.READER),
			rule(READ, "/v1/services/{service}/instances", Need.READER),
			rule(READ, "/v1/services/{service}/instances/{id}", Need.READER),
			rule(READ, "/v1/services/{service}/watch", Need.READER), rule(READ, "/v1/watch", Need.READER),
			rule(READ, "/v1/services/{service}/subscribers", Need.READER),
			rule(READ, "/v1/services/{service}/releases", Need.READER),
			rule(READ, "/v1/services/{service}/releases/{id}", Need.READER),
			rule(READ, "/v1/prometheus/targets", Need.READER),
			// A balancer confirms what it applied: part of reading a service.
			rule(Set.of("POST"), "/v1/services/{service}/subscribers/{subscriber}/ack", Need.READER),

			rule(Set.of("PUT", "DELETE"), "/v1/services/{service}/instances/{id}", Need.REGISTRANT),
			rule(Set.of("POST"), "/v1/services/{service}/instances/{id}/heartbeat", Need.REGISTRANT),
			// An instance that stops drains itself first (the Spring starter does on
			// SIGTERM), so that callers leave it before it goes: gentler than the
			// deregistration a registrant may already make, and guarded like any drain.
			rule(Set.of("POST"), "/v1/services/{service}/instances/{id}/drain", Need.REGISTRANT),

			rule(Set.of("PATCH", "DELETE"), "/v1/services/{service}", Need.OPERATOR),
			rule(Set.of("PATCH"), "/v1/services/{service}/instances/{id}", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/instances/{id}/serve", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/instances/{id}/maintenance", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/drains", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/releases", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/releases/{id}/advance", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/releases/{id}/promote", Need.OPERATOR),
			rule(Set.of("POST"), "/v1/services/{service}/releases/{id}/abort", Need.OPERATOR),
			rule(READ, "/v1/audit", Need.OPERATOR),
			// The nodes name the checks they probe in every service.
			rule(READ, "/v1/nodes", Need.OPERATOR),

			// The Consul-compatible surface (docs/consul.md). The leader status carries
			// no registry data and is every Consul client's liveness probe, Spring Cloud
			// Consul's health indicator among them, which sends no token; so does its
			// catalog query, answered without a token as Consul answers a token that may
			// read nothing: an empty, filtered list (ConsulCatalog).
			rule(READ, "/v1/status/leader", Need.NOTHING), rule(READ, "/v1/catalog/services", Need.NOTHING),
			rule(READ, "/v1/agent/self", Need.ANY_TOKEN), rule(READ, "/v1/catalog/service/{service}", Need.READER),
			rule(READ, "/v1/health/service/{service}", Need.READER),
			rule(READ, "/v1/health/checks/{service}", Need.READER),
			// Ballast as the one agent: every instance and check the token may read.
			rule(READ, "/v1/agent/services", Need.READER), rule(READ, "/v1/agent/service/{id}", Need.READER),
			rule(READ, "/v1/agent/checks", Need.READER),
			rule(Set.of("PUT"), "/v1/agent/service/register", Need.REGISTRANT_OF_NAMED_SERVICE),
			rule(Set.of("PUT"), "/v1/agent/service/deregister/{id}", Need.REGISTRANT_OF_NAMED_SERVICE),
			rule(Set.of("PUT"), "/v1/agent/service/maintenance/{id}", Need.REGISTRANT_OF_NAMED_SERVICE),
			// Consul's pass, warn and fail only: update and deregister are not served.
			rule(Set.of("PUT"), "/v1/agent/check/pass/{check}", Need.REGISTRANT_OF_NAMED_SERVICE),
			rule(Set.of("PUT"), "/v1/agent/check/warn/{check}", Need.REGISTRANT_OF_NAMED_SERVICE),
			rule(Set.of("PUT"), "/v1/agent/check/fail/{check}", Need.REGISTRANT_OF_NAMED_SERVICE),

			// Any token may ask who it is: the console shows its role from the answer.
			rule(READ, "/v1/tokens/self", Need.ANY_TOKEN),
			rule(Set.of("GET", "HEAD", "POST"), "/v1/tokens", Need.ADMIN),
			rule(Set.of("DELETE"), "/v1/tokens/{id}", Need.ADMIN));

	private AccessRules() {
	}

	/**
	 * What the request needs, and the service it addresses; empty when no rule covers it.
	 */
	static Optional<Match> match(HttpServletRequest request) {
		PathContainer path = PathContainer.parsePath(request.getRequestURI());
		for (Rule rule : RULES) {
			if (rule.methods().contains(request.getMethod())) {
				PathPattern.PathMatchInfo info = rule.pattern().matchAndExtract(path);
				if (info != null) {
					Map<String, String> variables = info.getUriVariables();
					return Optional.of(new Match(rule.need(), variables.get("service")));
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * Whether {@code authentication} may make the request: a rule covers it, and what the
	 * rule needs is nothing or is met by the caller's token for the service in the path.
	 * The one decision, for the filter chain and for the short ways that answer before
	 * it.
	 */
	static boolean permits(Authentication authentication, HttpServletRequest request) {
		Optional<Match> match = match(request);
		if (match.isEmpty()) {
			return false;
		}
		if (match.get().need() == Need.NOTHING) {
			return true;
		}
		return authentication instanceof Caller caller
				&& match.get().need().metBy(caller.token(), match.get().service());
	}

	/** Every method some rule serves at the request's path; empty when none does. */
	static Set<String> methodsAt(HttpServletRequest request) {
		PathContainer path = PathContainer.parsePath(request.getRequestURI());
		Set<String> methods = new TreeSet<>();
		for (Rule rule : RULES) {
			if (rule.pattern().matches(path)) {
				methods.addAll(rule.methods());
			}
		}
		return methods;
	}

	private static Rule rule(Set<String> methods, String pattern, Need need) {
		return new Rule(methods, PathPatternParser.defaultInstance.parse(pattern), need);
	}

	private record Rule(Set<String> methods, PathPattern pattern, Need need) {
	}

	/** A request's need, and the service in its path (or null). */
	record Match(Need need, String service) {
	}

}
