package dev.ballast.web;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.ObjectMapper;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
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

	private static final ObjectMapper JSON = new ObjectMapper();

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
		response.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setHeader("Connection", "close");
		response.getOutputStream()
			.write(("{\"type\":\"https://ballast.dev/problems/body-too-large\",\"title\":\"The body is too large\","
					+ "\"status\":413,\"detail\":\"request bodies are at most " + MAX_BYTES + " bytes\",\"instance\":"
					+ quoted(request.getRequestURI()) + "}")
				.getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

	private static String quoted(String text) {
		return JSON.writeValueAsString(text);
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
