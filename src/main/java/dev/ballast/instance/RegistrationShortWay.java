package dev.ballast.instance;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.DatabaseRefusal;
import dev.ballast.web.Headers;
import dev.ballast.web.OutcomeUnknownException;
import dev.ballast.web.ReadBody;
import dev.ballast.web.RequestReader;
import dev.ballast.web.ShortWay;
import dev.ballast.web.ShortWays.InstancePath;
import dev.ballast.web.ShortWays;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.ObjectMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Component;

/**
 * The registration's short way: a plain {@code PUT /v1/services/{service}/instances/{id}}
 * whose body is a valid registration, from a caller the security chain would admit, is
 * registered and answered here, ahead of every other filter (the security filter chain
 * among them) and Spring MVC, which cost more CPU than the write itself. It checks what
 * the chain checks, by the chain's own rules ({@link ShortWays#admit}: token, access
 * rule, write limit), binds the body straight from its bytes to what the controller binds
 * it to ({@link RequestReader#readValid}), writes through the same {@link Registrations}
 * and answers what {@link InstanceController} answers, with the same headers.
 * <p>
 * Everything else goes the full way with the body it sent: another method or path, a
 * query, an {@code Idempotency-Key}, a body that is not a valid registration, a caller
 * not admitted, an {@code Accept} or {@code Content-Type} other than JSON, and a write
 * the registry refuses (404, 409, 422, an outage): nothing was written, and the full way
 * refuses it again with its own problem answer (without charging the token a second
 * write). A write whose outcome is not known (its transaction had not committed within
 * the commit wait) is answered here, as it may still commit, and so is one the database
 * refused while up ({@link DatabaseRefusal}: a lock or statement timeout, a collision),
 * which the full way would wait for as long again. The filters it runs ahead of have
 * nothing to do for what it takes: its content type is JSON, its body far below the body
 * limit, its path not Consul's.
 * <p>
 * As a {@link ShortWay} it runs once the request has its id, so its answers carry one
 * like every other, and its audit entry names it.
 */
@Component
class RegistrationShortWay implements ShortWay {

	/** Registration bodies are a few hundred bytes; longer ones go the full way. */
	private static final int MAX_BODY = 16 * 1024;

	private final Registrations registrations;

	private final ShortWays shortWays;

	private final RequestReader reader;

	private final ObjectMapper json;

	RegistrationShortWay(Registrations registrations, ShortWays shortWays, RequestReader reader, ObjectMapper json) {
		this.registrations = registrations;
		this.shortWays = shortWays;
		this.reader = reader;
		this.json = json;
	}

	@Override
	public HttpServletRequest answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
		InstancePath target = plain(request) ? ShortWays.instancePath(request.getRequestURI(), "") : null;
		if (target == null) {
			return request;
		}
		byte[] body = request.getInputStream().readNBytes((int) request.getContentLengthLong());
		Registration registration;
		try {
			registration = register(request, response, target, body);
		}
		catch (OutcomeUnknownException unknown) {
			shortWays.refuse(request, response, unknown::send);
			return null;
		}
		catch (RuntimeException failed) {
			DatabaseRefusal refusal = DatabaseRefusal.of(failed).orElseThrow(() -> failed);
			shortWays.refuse(request, response, refusal::send);
			return null;
		}
		if (registration == null) {
			return ReadBody.replaying(request, body);
		}
		Map<String, String> headers = new LinkedHashMap<>();
		if (!registration.normalized().isEmpty()) {
			headers.put(Headers.NORMALIZED, String.join(",", registration.normalized()));
		}
		headers.put(HttpHeaders.ETAG, Revisions.etag(registration.instance().revision()));
		shortWays.answer(request, response,
				registration.created() ? HttpServletResponse.SC_CREATED : HttpServletResponse.SC_OK, headers,
				json.writeValueAsBytes(registration.instance()));
		return null;
	}

	/**
	 * Registers, or returns null for the full way: a body that is not a valid
	 * registration, names that are not valid, a caller not admitted, a refused write.
	 * @throws OutcomeUnknownException when its write may still commit
	 * @throws RuntimeException when the database refused its write while up
	 * ({@link DatabaseRefusal})
	 */
	private Registration register(HttpServletRequest request, HttpServletResponse response, InstancePath target,
			byte[] body) {
		ServiceName service;
		InstanceId id;
		RegistrationRequest parsed;
		try {
			service = ServiceName.of(target.service());
			id = InstanceId.of(target.id());
			parsed = reader.readValid(body, RegistrationRequest.class).orElse(null);
		}
		catch (RuntimeException invalid) {
			return null;
		}
		Optional<Authentication> caller = parsed == null ? Optional.empty() : shortWays.admit(request);
		if (caller.isEmpty()) {
			return null;
		}
		return shortWays.asCaller(request, response, caller.get(), () -> {
			try {
				return registrations.register(service, id, parsed);
			}
			catch (OutcomeUnknownException unknown) {
				// Its write may still commit: answered here, not sent again.
				throw unknown;
			}
			catch (RuntimeException refused) {
				if (DatabaseRefusal.of(refused).isPresent()) {
					// A lock or statement timeout, or a collision the group could not get
					// past: the full way would wait as long again. Answered here.
					throw refused;
				}
				return null;
			}
		});
	}

	/**
	 * A plain PUT of a JSON body of known, small length ({@link ShortWays#plain}): the
	 * shape of every registering client.
	 */
	private static boolean plain(HttpServletRequest request) {
		long length = request.getContentLengthLong();
		return ShortWays.plain(request, "PUT") && MediaType.APPLICATION_JSON_VALUE.equals(request.getContentType())
				&& length > 0 && length <= MAX_BODY;
	}

}
