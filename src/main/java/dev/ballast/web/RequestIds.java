package dev.ballast.web;

import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives every request an id: the caller's {@value #HEADER} when it is a sane token,
 * otherwise a new one, so one id ties a client's log, the audit log and ours together. It
 * is set on the response before anything else runs, so every answer carries it, refusals
 * by later filters included. Then the {@link ShortWay}s may answer the request before the
 * rest of the chain.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestIds extends OncePerRequestFilter {

	public static final String HEADER = "X-Request-Id";

	private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

	private static final String ATTRIBUTE = RequestIds.class.getName();

	private final List<ShortWay> shortWays;

	RequestIds(ObjectProvider<ShortWay> shortWays) {
		this.shortWays = shortWays.orderedStream().toList();
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String id = request.getHeader(HEADER);
		if (id == null || !SANE.matcher(id).matches()) {
			// Unique, not secret: a SecureRandom per request cost a lock under load.
			ThreadLocalRandom random = ThreadLocalRandom.current();
			id = new UUID(random.nextLong() & ~0xF000L | 0x4000L,
					random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L)
				.toString();
		}
		request.setAttribute(ATTRIBUTE, id);
		response.setHeader(HEADER, id);
		HttpServletRequest fullWay = request;
		for (ShortWay shortWay : shortWays) {
			fullWay = shortWay.answer(fullWay, response);
			if (fullWay == null) {
				return;
			}
		}
		chain.doFilter(fullWay, response);
	}

	/** The id of the request this thread serves, or {@code null} outside a request. */
	public static String current() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return attributes == null ? null : (String) attributes.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
	}

}
