package dev.ballast.instance;

import java.io.IOException;
import java.util.Optional;

import dev.ballast.security.RegistrantAdmission;
import dev.ballast.web.DatabaseRefusal;
import dev.ballast.web.OutcomeUnknownException;
import dev.ballast.web.ReadBody;
import dev.ballast.web.RequestReader;
import dev.ballast.web.ShortWay;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.ObjectMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The registration's short way: a plain {@code PUT /v1/services/{service}/instances/{id}}
 * whose body is a valid registration, from a caller the security chain would admit, is
 * registered and answered here, ahead of every other filter (the security filter chain
 * among them) and Spring MVC, which cost more CPU than the write itself. It checks what
 * the chain checks ({@link RegistrantAdmission}: token, service scope, write limit),
 * binds the body straight from its bytes to what the controller binds it to
 * ({@link RequestReader#readValid}), writes through the same {@link Registrations} and
 * answers what {@link InstanceController} answers, with the same headers.
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

	private static final String PREFIX = "/v1/services/";

	private static final String INSTANCES = "/instances/";

	/** Registration bodies are a few hundred bytes; longer ones go the full way. */
	private static final int MAX_BODY = 16 * 1024;

	private final Registrations registrations;

	private final RegistrantAdmission admission;

	private final RequestReader reader;

	private final ObjectMapper json;

	RegistrationShortWay(Registrations registrations, RegistrantAdmission admission, RequestReader reader,
			ObjectMapper json) {
		this.registrations = registrations;
		this.admission = admission;
		this.reader = reader;
		this.json = json;
	}

	@Override
	public HttpServletRequest answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
		String[] target = plain(request) ? target(request.getRequestURI()) : null;
		if (target == null) {
			return request;
		}
		byte[] body = request.getInputStream().readNBytes((int) request.getContentLengthLong());
		Registration registration;
		try {
			registration = register(request, response, target, body);
		}
		catch (OutcomeUnknownException unknown) {
			admission.writeHeaders(request, response);
			unknown.send(request, response);
			return null;
		}
		catch (RuntimeException failed) {
			DatabaseRefusal refusal = DatabaseRefusal.of(failed).orElseThrow(() -> failed);
			admission.writeHeaders(request, response);
			refusal.send(request, response);
			return null;
		}
		if (registration == null) {
			return ReadBody.replaying(request, body);
		}
		byte[] answer = json.writeValueAsBytes(registration.instance());
		admission.writeHeaders(request, response);
		response.setStatus(registration.created() ? HttpServletResponse.SC_CREATED : HttpServletResponse.SC_OK);
		if (!registration.normalized().isEmpty()) {
			response.setHeader(Headers.NORMALIZED, String.join(",", registration.normalized()));
		}
		response.setHeader(HttpHeaders.ETAG, Revisions.etag(registration.instance().revision()));
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setContentLength(answer.length);
		response.getOutputStream().write(answer);
		return null;
	}

	/**
	 * Registers, or returns null for the full way: a body that is not a valid
	 * registration, names that are not valid, a caller not admitted, a refused write.
	 * @throws OutcomeUnknownException when its write may still commit
	 * @throws RuntimeException when the database refused its write while up
	 * ({@link DatabaseRefusal})
	 */
	private Registration register(HttpServletRequest request, HttpServletResponse response, String[] target,
			byte[] body) {
		ServiceName service;
		InstanceId id;
		RegistrationRequest parsed;
		try {
			service = ServiceName.of(target[0]);
			id = InstanceId.of(target[1]);
			parsed = reader.readValid(body, RegistrationRequest.class).orElse(null);
		}
		catch (RuntimeException invalid) {
			return null;
		}
		Optional<Authentication> caller = parsed == null ? Optional.empty() : admission.admit(request, target[0]);
		if (caller.isEmpty()) {
			return null;
		}
		SecurityContext context = SecurityContextHolder.createEmptyContext();
		context.setAuthentication(caller.get());
		SecurityContextHolder.setContext(context);
		// What Spring's request context filter, not yet run, sets: the audit's request
		// id.
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request, response));
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
		finally {
			RequestContextHolder.resetRequestAttributes();
			SecurityContextHolder.clearContext();
		}
	}

	/**
	 * A PUT of a JSON body of known, small length, without query, idempotency key or
	 * context path, accepting JSON: the shape of every registering client.
	 */
	private static boolean plain(HttpServletRequest request) {
		if (!"PUT".equals(request.getMethod()) || request.getDispatcherType() != DispatcherType.REQUEST
				|| request.getQueryString() != null || !request.getContextPath().isEmpty()
				|| request.getHeader("Idempotency-Key") != null
				|| !MediaType.APPLICATION_JSON_VALUE.equals(request.getContentType())) {
			return false;
		}
		long length = request.getContentLengthLong();
		if (length <= 0 || length > MAX_BODY) {
			return false;
		}
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		return accept == null || accept.equals(MediaType.ALL_VALUE) || accept.equals(MediaType.APPLICATION_JSON_VALUE);
	}

	/**
	 * The service and instance id a raw registration path names, or null for any other
	 * path. Only names free of escapes and dot segments are taken, so the path means what
	 * the full way would decode.
	 */
	static String[] target(String uri) {
		if (!uri.startsWith(PREFIX)) {
			return null;
		}
		int serviceEnd = uri.indexOf('/', PREFIX.length());
		if (serviceEnd <= PREFIX.length() || !uri.startsWith(INSTANCES, serviceEnd)) {
			return null;
		}
		String service = uri.substring(PREFIX.length(), serviceEnd);
		String id = uri.substring(serviceEnd + INSTANCES.length());
		return literal(service) && literal(id) ? new String[] { service, id } : null;
	}

	private static boolean literal(String segment) {
		return !segment.isEmpty() && segment.indexOf('/') < 0 && segment.indexOf('%') < 0 && segment.indexOf(';') < 0
				&& !segment.equals(".") && !segment.equals("..");
	}

}
