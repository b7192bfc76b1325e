package dev.ballast.web;

import java.util.Optional;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.security.core.Authentication;

/**
 * The security filter chain's decision on a request that a {@link ShortWay} answers
 * before the chain runs, taken by the same rules. The security module implements it, so
 * that its dependency on this module is not turned around.
 */
public interface ChainDecision {

	/**
	 * The caller, when the chain would let the request through: a known bearer token in
	 * force, admitted by the access rule of the request's method and path and, for a
	 * write, with room in its write allowance (one write is then taken, and not again
	 * should the request go the full way after all). Empty otherwise; it only ever
	 * admits, and the full way refuses what it does not with the usual 401, 403 or 429.
	 */
	Optional<Authentication> admit(HttpServletRequest request);

	/** Writes the headers the chain adds to every answer. */
	void writeHeaders(HttpServletRequest request, HttpServletResponse response);

}
