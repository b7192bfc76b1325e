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
	 * Answers the request and returns null, or returns the request the full way is to
	 * take, having written nothing: {@code request} itself, or, when the short way read
	 * its body before leaving it, one that reads that body again ({@link ReadBody}).
	 */
	HttpServletRequest answer(HttpServletRequest request, HttpServletResponse response) throws IOException;

}
