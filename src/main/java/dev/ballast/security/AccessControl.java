package dev.ballast.security;

import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ballast.web.Problem;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;

/**
 * The registry's one security filter chain: stateless bearer tokens (no sessions, no
 * cookies, hence no CSRF), the access rules of {@link AccessRules}, the per-token write
 * limit, and problem details for 401 and 403 that say what was missing.
 */
@Configuration(proxyBeanMethods = false)
class AccessControl {

	private static final Pattern REFUSED_PART = Pattern.compile("potentially malicious String \"(.*)\"");

	/**
	 * No observation per security filter and request: on the heartbeat path they cost
	 * more than the rest of the request. Refusals still show in the HTTP metrics by
	 * status.
	 */
	@Bean
	SecurityObservationSettings noSecurityObservations() {
		return SecurityObservationSettings.noObservations();
	}

	@Bean
	SecurityFilterChain registryAccess(HttpSecurity http, Tokens tokens, WriteBuckets buckets, MeterRegistry meters)
			throws Exception {
		return http.csrf(AbstractHttpConfigurer::disable)
			.httpBasic(AbstractHttpConfigurer::disable)
			.formLogin(AbstractHttpConfigurer::disable)
			.logout(AbstractHttpConfigurer::disable)
			.requestCache(AbstractHttpConfigurer::disable)
			.sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.addFilterBefore(new UnservedPaths(), AnonymousAuthenticationFilter.class)
			.addFilterBefore(new BearerTokens(tokens), AnonymousAuthenticationFilter.class)
			.addFilterAfter(new WriteLimits(buckets, meters), AuthorizationFilter.class)
			// An async or error dispatch continues a request that was authorized already.
			.authorizeHttpRequests(
					requests -> requests.dispatcherTypeMatchers(DispatcherType.ASYNC, DispatcherType.ERROR)
						.permitAll()
						.anyRequest()
						.access((authentication, context) -> new AuthorizationDecision(
								AccessRules.permits(authentication.get(), context.getRequest()))))
			.exceptionHandling(failures -> failures
				.authenticationEntryPoint((request, response, ex) -> BearerTokens.missing(request, response))
				.accessDeniedHandler((request, response, ex) -> forbidden(request, response)))
			.build();
	}

	private static void forbidden(HttpServletRequest request, HttpServletResponse response) throws IOException {
		String call = request.getMethod() + " " + request.getRequestURI();
		String caller = SecurityContextHolder.getContext().getAuthentication() instanceof Caller known
				? known.token().describe() : "this token";
		Optional<AccessRules.Match> match = AccessRules.match(request);
		if (match.isEmpty()) {
			unserved(request, response);
			return;
		}
		String detail = "%s may not call %s: it needs %s".formatted(caller, call, match.get().need().description());
		new Problem("https://ballast.dev/problems/forbidden", "The token may not do this", 403, detail,
				request.getRequestURI(), null)
			.send(response);
	}

	/**
	 * A call no rule names at a path some rule serves: a 405 naming the methods served
	 * there (a path no rule serves never gets here: {@link UnservedPaths}).
	 */
	private static void unserved(HttpServletRequest request, HttpServletResponse response) throws IOException {
		Set<String> allowed = AccessRules.methodsAt(request);
		response.setHeader("Allow", String.join(", ", allowed));
		new Problem("https://ballast.dev/problems/method-not-allowed", "Method not allowed", 405,
				"%s is not served at %s; use %s".formatted(request.getMethod(), request.getRequestURI(),
						String.join(", ", allowed)),
				request.getRequestURI(), null)
			.send(response);
	}

	/**
	 * The firewall's refusal of a path (//, ;, encoded dots or slashes, a backslash, a
	 * control character), as a problem naming what it found, instead of a bare 400.
	 */
	@Bean
	RequestRejectedHandler refusedPaths() {
		return (request, response, ex) -> {
			Matcher found = REFUSED_PART.matcher(String.valueOf(ex.getMessage()));
			String what = found.find() ? "it contains \"%s\"".formatted(found.group(1)) : "it is not a plain path";
			new Problem("https://ballast.dev/problems/bad-request", "Bad Request", 400,
					"the path is refused before it reaches the registry: %s; send the plain path, without //, ;, "
						.formatted(what) + "encoded dots or slashes, a backslash or control characters",
					request.getRequestURI(), null)
				.send(response);
		};
	}

}
