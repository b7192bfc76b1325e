package dev.ballast.lease;

import java.io.IOException;

import dev.ballast.security.RegistrantAdmission;
import dev.ballast.web.ShortWay;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

/**
 * The heartbeat's short way: {@code POST /v1/services/{service}/instances/{id}/heartbeat}
 * of an instance this node holds as current is answered here, ahead of every other filter
 * (the security filter chain among them) and Spring MVC, which cost several times what
 * absorbing the heartbeat does. It checks what the chain checks
 * ({@link RegistrantAdmission}: token, service scope, write limit) and answers what
 * {@link HeartbeatController} answers, with the same headers. Anything else goes the full
 * way, untouched: an instance not cached or not PASSING (its first heartbeat here, a
 * revival, a 404), a refusal (401, 403, 429), a body, a query, an
 * {@code Idempotency-Key}, an escaped path, an {@code Accept} other than JSON.
 * <p>
 * As a {@link ShortWay} it runs once the request has its id, so its answers carry one
 * like every other.
 */
@Component
class HeartbeatShortWay implements ShortWay {

	private static final String PREFIX = "/v1/services/";

	private static final String INSTANCES = "/instances/";

	private static final String SUFFIX = "/heartbeat";

	private final Heartbeats heartbeats;

	private final RegistrantAdmission admission;

	HeartbeatShortWay(Heartbeats heartbeats, RegistrantAdmission admission) {
		this.heartbeats = heartbeats;
		this.admission = admission;
	}

	@Override
	public HttpServletRequest answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
		InstanceKey key = plain(request) ? key(request.getRequestURI()) : null;
		HeartbeatView answer = key == null ? null
				: heartbeats.beatFromMemory(key, () -> admission.admits(request, key.service()));
		if (answer == null) {
			return request;
		}
		byte[] body = answer.json();
		admission.writeHeaders(request, response);
		response.setStatus(HttpServletResponse.SC_OK);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
		return null;
	}

	/**
	 * A bodiless POST without query, idempotency key or context path, accepting JSON: the
	 * shape of every heartbeat client, and one in which the full way has nothing else to
	 * decide.
	 */
	private static boolean plain(HttpServletRequest request) {
		if (!"POST".equals(request.getMethod()) || request.getDispatcherType() != DispatcherType.REQUEST
				|| request.getQueryString() != null || !request.getContextPath().isEmpty()
				|| request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null
				|| request.getHeader("Idempotency-Key") != null) {
			return false;
		}
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		return accept == null || accept.equals(MediaType.ALL_VALUE) || accept.equals(MediaType.APPLICATION_JSON_VALUE);
	}

	/**
	 * The instance a raw heartbeat path names, or null for any other path. Only names
	 * free of escapes and dot segments are taken, so the path means what the full way
	 * would decode; whether they are valid names the cache tells (it holds only
	 * registered ones).
	 */
	static InstanceKey key(String uri) {
		if (!uri.startsWith(PREFIX) || !uri.endsWith(SUFFIX)) {
			return null;
		}
		int serviceEnd = uri.indexOf('/', PREFIX.length());
		if (serviceEnd < 0 || !uri.startsWith(INSTANCES, serviceEnd)) {
			return null;
		}
		int idStart = serviceEnd + INSTANCES.length();
		int idEnd = uri.length() - SUFFIX.length();
		if (idEnd <= idStart || serviceEnd == PREFIX.length()) {
			return null;
		}
		String service = uri.substring(PREFIX.length(), serviceEnd);
		String id = uri.substring(idStart, idEnd);
		return literal(service) && literal(id) ? new InstanceKey(service, id) : null;
	}

	private static boolean literal(String segment) {
		return segment.indexOf('/') < 0 && segment.indexOf('%') < 0 && segment.indexOf(';') < 0 && !segment.equals(".")
				&& !segment.equals("..");
	}

}
