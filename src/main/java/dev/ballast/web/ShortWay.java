package dev.ballast.web;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A request so frequent and so simple that it is answered whole right after it gets its
 * id ({@link RequestIds}), ahead of every other filter: each filter of the chain, though
 * it has nothing to do for such a request, costs more than answering it. A short way
 * takes only requests for which the full way would have nothing else to decide, and must
 * check what the full way checks (authentication above all).
 */
public interface ShortWay {

	/**
	 * Answers the request and returns true, or returns false having written nothing, so
	 * that the request goes the full way.
	 */
	boolean answered(HttpServletRequest request, HttpServletResponse response) throws IOException;

}
