package dev.ballast.web;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Request bodies are at most {@value #MAX_BYTES} bytes: a larger declared length is
 * refused with 413 before anything is read, and a chunked body is cut off with 413 as
 * soon as it passes the limit, so no request can make the registry buffer more.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class BodyLimit extends OncePerRequestFilter {

	static final int MAX_BYTES = 64 * 1024;

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getContentLengthLong() > MAX_BYTES) {
			refuse(request, response);
			return;
		}
		chain.doFilter(new Limited(request), response);
	}

	static void refuse(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader("Connection", "close");
		new Problem(ProblemResponses.TOO_LARGE.toString(), "The body is too large", 413,
				"request bodies are at most %d bytes".formatted(MAX_BYTES), request.getRequestURI(), null)
			.send(response);
	}

	/** Thrown by a limited body's stream once it passes the limit. */
	static final class TooLarge extends IOException {

		TooLarge() {
			super("the body is larger than " + MAX_BYTES + " bytes", null);
		}

	}

	private static final class Limited extends HttpServletRequestWrapper {

		private ServletInputStream limited;

		Limited(HttpServletRequest request) {
			super(request);
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (limited == null) {
				ServletInputStream in = super.getInputStream();
				limited = new ServletInputStream() {
					private long read;

					@Override
					public int read() throws IOException {
						int b = in.read();
						if (b >= 0) {
							count(1);
						}
						return b;
					}

					@Override
					public int read(byte[] buffer, int offset, int length) throws IOException {
						int n = in.read(buffer, offset, length);
						if (n > 0) {
							count(n);
						}
						return n;
					}

					private void count(int n) throws TooLarge {
						read += n;
						if (read > MAX_BYTES) {
							throw new TooLarge();
						}
					}

					@Override
					public boolean isFinished() {
						return in.isFinished();
					}

					@Override
					public boolean isReady() {
						return in.isReady();
					}

					@Override
					public void setReadListener(ReadListener listener) {
						in.setReadListener(listener);
					}
				};
			}
			return limited;
		}

	}

}
