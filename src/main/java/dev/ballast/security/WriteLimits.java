package dev.ballast.security;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.ballast.web.Problem;
import dev.ballast.web.RetryAfter;
import io.github.bucket4j.ConsumptionProbe;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Each token's mutating requests, heartbeats included, are limited per second on each
 * node ({@link WriteBuckets}). Past it: 429 with a jittered Retry-After, so that a crowd
 * of refused clients does not come back in step.
 */
final class WriteLimits extends OncePerRequestFilter {

	private static final Set<String> MUTATING = Set.of("POST", "PUT", "PATCH", "DELETE");

	private final WriteBuckets buckets;

	private final Counter refused;

	WriteLimits(WriteBuckets buckets, MeterRegistry meters) {
		this.buckets = buckets;
		this.refused = Counter.builder("ballast.writes.rate.limited")
			.description("Mutating requests refused with 429 by the per-token rate limit")
			.register(meters);
	}

	/** Whether the limit counts the request: a POST, PUT, PATCH or DELETE. */
	static boolean mutating(HttpServletRequest request) {
		return MUTATING.contains(request.getMethod());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		// A request a short way admitted and then handed on has paid for its write there.
		if (!mutating(request) || ShortWayAdmission.charged(request)
				|| !(SecurityContextHolder.getContext().getAuthentication() instanceof Caller caller)) {
			chain.doFilter(request, response);
			return;
		}
		Token token = caller.token();
		ConsumptionProbe probe = buckets.take(token);
		if (probe.isConsumed()) {
			chain.doFilter(request, response);
			return;
		}
		refused.increment();
		long base = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(probe.getNanosToWaitForRefill() + 999_999_999L));
		// The refill time is known exactly, so the spread is narrower than an outage's.
		response.setHeader(HttpHeaders.RETRY_AFTER, RetryAfter.within(base, 2 * base));
		new Problem("https://ballast.dev/problems/rate-limited", "Too many writes", 429,
				"token \"%s\" may make %d writes per second; nothing was written, retry after the Retry-After delay"
					.formatted(token.name(), buckets.perSecond(token)),
				request.getRequestURI(), null)
			.send(response);
	}

}
