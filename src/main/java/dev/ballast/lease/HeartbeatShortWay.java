package dev.ballast.lease;

import java.io.IOException;
import java.util.Map;

import dev.ballast.registry.InstanceKey;
import dev.ballast.web.ShortWay;
import dev.ballast.web.ShortWays;
import dev.ballast.web.ShortWays.InstancePath;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

/**
 * The heartbeat's short way: {@code POST /v1/services/{service}/instances/{id}/heartbeat}
 * of an instance this node holds as current is answered here, ahead of every other filter
 * (the security filter chain among them) and Spring MVC, which cost several times what
 * absorbing the heartbeat does. It checks what the chain checks, by the chain's own rules
 * ({@link ShortWays#admit}: token, access rule, write limit) and answers what
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

	private static final String SUFFIX = "/heartbeat";

	private final Heartbeats heartbeats;

	private final ShortWays shortWays;

	HeartbeatShortWay(Heartbeats heartbeats, ShortWays shortWays) {
		this.heartbeats = heartbeats;
		this.shortWays = shortWays;
	}

	@Override
	public HttpServletRequest answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
		InstancePath path = plain(request) ? ShortWays.instancePath(request.getRequestURI(), SUFFIX) : null;
		HeartbeatView answer = path == null ? null : heartbeats
			.beatFromMemory(new InstanceKey(path.service(), path.id()), () -> shortWays.admit(request).isPresent());
		if (answer == null) {
			return request;
		}
		shortWays.answer(request, response, HttpServletResponse.SC_OK, Map.of(), answer.json());
		return null;
	}

	/**
	 * A plain, bodiless POST ({@link ShortWays#plain}): the shape of every heartbeat
	 * client. Whether the names are valid the cache tells (it holds only registered
	 * ones).
	 */
	private static boolean plain(HttpServletRequest request) {
		return ShortWays.plain(request, "POST") && request.getContentLengthLong() <= 0
				&& request.getHeader(HttpHeaders.TRANSFER_ENCODING) == null;
	}

}
