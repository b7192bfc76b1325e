package dev.ballast.web;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * What every {@link ShortWay} shares, so that what decides whether a request may skip the
 * full way is written once: the shape of a plain request, one rule for reading an
 * instance's path, the security chain's own decision ({@link ChainDecision}), running as
 * the admitted caller, and writing the answer with the headers the full way would add.
 */
@Component
public class ShortWays {

	private static final String PREFIX = "/v1/services/";

	private static final String INSTANCES = "/instances/";

	private final ChainDecision chain;

	ShortWays(ChainDecision chain) {
		this.chain = chain;
	}

	/**
	 * The service and instance an instance's raw path names
	 * ({@code /v1/services/{service}/instances/{id}} followed by {@code suffix}), or null
	 * for any other path. Each name must be a literal segment: not empty, no {@code /},
	 * no escape ({@code %}), no path parameter ({@code ;}), not {@code .} or {@code ..};
	 * so the path means what the full way would decode. Whether they are valid names is
	 * the caller's to check.
	 * @param suffix what follows the id, such as {@code /heartbeat}, or {@code ""}
	 */
	public static InstancePath instancePath(String uri, String suffix) {
		if (!uri.startsWith(PREFIX) || !uri.endsWith(suffix)) {
			return null;
		}
		int serviceEnd = uri.indexOf('/', PREFIX.length());
		if (serviceEnd < 0 || !uri.startsWith(INSTANCES, serviceEnd)) {
			return null;
		}
		int idStart = serviceEnd + INSTANCES.length();
		int idEnd = uri.length() - suffix.length();
		if (idEnd < idStart) {
			return null;
		}
		String service = uri.substring(PREFIX.length(), serviceEnd);
		String id = uri.substring(idStart, idEnd);
		return literal(service) && literal(id) ? new InstancePath(service, id) : null;
	}

	private static boolean literal(String segment) {
		return !segment.isEmpty() && segment.indexOf('/') < 0 && segment.indexOf('%') < 0 && segment.indexOf(';') < 0
				&& !segment.equals(".") && !segment.equals("..");
	}

	/**
	 * Whether the request is a plain {@code method} call, the shape every client of a
	 * short way sends and one in which the full way has nothing else to decide: a first
	 * dispatch, without query, context path or {@code Idempotency-Key}, accepting JSON
	 * ({@code Accept} absent, {@code *}{@code /*} or {@code application/json}). Its body
	 * is the short way's to judge.
	 */
	public static boolean plain(HttpServletRequest request, String method) {
		if (!method.equals(request.getMethod()) || request.getDispatcherType() != DispatcherType.REQUEST
				|| request.getQueryString() != null || !request.getContextPath().isEmpty()
				|| request.getHeader(IdempotencyKeys.HEADER) != null) {
			return false;
		}
		String accept = request.getHeader(HttpHeaders.ACCEPT);
		return accept == null || accept.equals(MediaType.ALL_VALUE) || accept.equals(MediaType.APPLICATION_JSON_VALUE);
	}

	/**
	 * The caller, when the security chain would admit the request
	 * ({@link ChainDecision}), one write taken from its allowance; empty for the full
	 * way, which refuses it.
	 */
	public Optional<Authentication> admit(HttpServletRequest request) {
		return chain.admit(request);
	}

	/**
	 * Runs {@code work} as the admitted {@code caller}, with what the filters the short
	 * way runs ahead of would have set: the security context and the request attributes
	 * (the audit entry reads the caller and the request id from them).
	 */
	public <T> T asCaller(HttpServletRequest request, HttpServletResponse response, Authentication caller,
			Supplier<T> work) {
		SecurityContext context = SecurityContextHolder.createEmptyContext();
		context.setAuthentication(caller);
		SecurityContextHolder.setContext(context);
		RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request, response));
		try {
			return work.get();
		}
		finally {
			RequestContextHolder.resetRequestAttributes();
			SecurityContextHolder.clearContext();
		}
	}

	/**
	 * Answers with {@code status}, {@code headers} and the JSON {@code body}, and the
	 * headers the security chain adds to every answer, as the full way answers.
	 */
	public void answer(HttpServletRequest request, HttpServletResponse response, int status,
			Map<String, String> headers, byte[] body) throws IOException {
		chain.writeHeaders(request, response);
		response.setStatus(status);
		headers.forEach(response::setHeader);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	/**
	 * Answers with a problem the full way would answer too ({@link DatabaseRefusal},
	 * {@link OutcomeUnknownException}), with the headers the security chain adds.
	 */
	public void refuse(HttpServletRequest request, HttpServletResponse response, ProblemAnswer problem)
			throws IOException {
		chain.writeHeaders(request, response);
		problem.send(request, response);
	}

	/**
	 * The names an instance's path holds, as sent.
	 *
	 * @param service the service's name
	 * @param id the instance's id
	 */
	public record InstancePath(String service, String id) {
	}

	/** A problem that writes itself outside Spring MVC. */
	@FunctionalInterface
	public interface ProblemAnswer {

		void send(HttpServletRequest request, HttpServletResponse response) throws IOException;

	}

}
