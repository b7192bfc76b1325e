package dev.ballast.web;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

/**
 * A request whose body a filter has read already, handed on to what comes after it with
 * the same body: the idempotency filter (which hashes it) and the registration's short
 * way (which leaves what it does not answer to the full way).
 */
public final class ReadBody extends HttpServletRequestWrapper {

	private final byte[] body;

	private ReadBody(HttpServletRequest request, byte[] body) {
		super(request);
		this.body = body;
	}

	/** {@code request} with {@code body} to read again. */
	public static HttpServletRequest replaying(HttpServletRequest request, byte[] body) {
		return new ReadBody(request, body);
	}

	@Override
	public ServletInputStream getInputStream() {
		ByteArrayInputStream in = new ByteArrayInputStream(body);
		return new ServletInputStream() {
			@Override
			public int read() {
				return in.read();
			}

			@Override
			public int read(byte[] buffer, int offset, int length) {
				return in.read(buffer, offset, length);
			}

			@Override
			public boolean isFinished() {
				return in.available() == 0;
			}

			@Override
			public boolean isReady() {
				return true;
			}

			@Override
			public void setReadListener(ReadListener listener) {
				throw new UnsupportedOperationException("the body was read already");
			}
		};
	}

	@Override
	public BufferedReader getReader() {
		return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), StandardCharsets.UTF_8));
	}

	@Override
	public int getContentLength() {
		return body.length;
	}

	@Override
	public long getContentLengthLong() {
		return body.length;
	}

}
