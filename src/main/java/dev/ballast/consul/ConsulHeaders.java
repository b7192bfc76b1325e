package dev.ballast.consul;

import java.io.IOException;
import java.util.regex.Pattern;

import dev.ballast.web.Headers;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The headers Consul sends with every answer: Ballast has no leader election of its own
 * (PostgreSQL is the one source of truth), so a node always knows its "leader" and was in
 * contact with it just now. Set before anything else runs, so refusals carry them too.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
class ConsulHeaders extends OncePerRequestFilter {

	static final String INDEX = "X-Consul-Index";

	static final String KNOWN_LEADER = "X-Consul-KnownLeader";

	static final String LAST_CONTACT = "X-Consul-LastContact";

	static final String FILTERED = "X-Consul-Results-Filtered-By-ACLs";

	static final Pattern PATHS = Pattern.compile("/v1/(agent|catalog|health|status)/.*");

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !PATHS.matcher(request.getRequestURI()).matches();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		response.setHeader(KNOWN_LEADER, "true");
		response.setHeader(LAST_CONTACT, "0");
		chain.doFilter(request, response);
	}

	/** A 200 at a Consul index, marked stale when it is the node's last known state. */
	static ResponseEntity.BodyBuilder indexed(long index, boolean stale) {
		return Headers.ok(stale).header(INDEX, Long.toString(index));
	}

}
