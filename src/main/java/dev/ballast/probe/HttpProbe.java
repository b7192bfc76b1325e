package dev.ballast.probe;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Locale;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.Port;
import dev.ballast.registry.StoredCheck;

/**
 * An HTTP(S) GET or HEAD, judged as Consul judges it: 2xx passing, 429 warning, anything
 * else, or no answer within the timeout, critical. Redirects are not followed (a check
 * may only reach its own instance), and at most {@link #BODY_BYTES} of the body are read
 * into the output; the rest is not read at all.
 * <p>
 * One HTTP/1.1 exchange on a connection of its own ({@code Connection: close}, as
 * Consul's checks do), written and read on the probe's virtual thread with blocking
 * socket calls; the {@link Deadline} closes the connection when the timeout passes,
 * whatever the exchange is waiting for (the TLS handshake, the status line, a body that
 * trickles in). The JDK's {@code HttpClient} did the same work with a selector thread, a
 * worker pool and a chain of futures per request: about half of the probing node's CPU in
 * the probe benchmark.
 */
final class HttpProbe implements Probe {

	static final int BODY_BYTES = 1024;

	/** Longest status line and headers read: a probe needs only the status. */
	static final int HEAD_BYTES = 16 * 1024;

	private final Dialer dialer;

	private final SSLSocketFactory verifying;

	private final SSLSocketFactory trusting;

	HttpProbe(Dialer dialer) {
		this.dialer = dialer;
		try {
			this.verifying = SSLContext.getDefault().getSocketFactory();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("TLS is not available", ex);
		}
		this.trusting = trustingEveryCertificate();
	}

	@Override
	public ProbeOutcome run(CheckDefinition check, Port instancePort, Deadline deadline) {
		String what = "HTTP " + check.method() + " " + check.target();
		try (Socket socket = dialer.connect(check, instancePort, deadline)) {
			Socket exchange = URI.create(check.target()).getScheme().equalsIgnoreCase("https") ? tls(socket, check)
					: socket;
			if (exchange instanceof SSLSocket handshaking) {
				handshaking.startHandshake();
			}
			exchange.getOutputStream().write(request(check));
			Answer answer = new Answer(exchange.getInputStream());
			int code = answer.status();
			String body = check.method().equals("HEAD") || code == 204 || code == 304 ? "" : answer.body();
			CheckStatus status = code >= 200 && code < 300 ? CheckStatus.PASSING
					: code == 429 ? CheckStatus.WARNING : CheckStatus.CRITICAL;
			return new ProbeOutcome(status, what + ": " + code + (body.isEmpty() ? "" : StoredCheck.BODY + body));
		}
		catch (IOException | IllegalArgumentException ex) {
			return Probe.failed(what, deadline, ex);
		}
	}

	private SSLSocket tls(Socket socket, CheckDefinition check) throws IOException {
		SSLSocket tls = (SSLSocket) (check.tlsSkipVerify() ? trusting : verifying).createSocket(socket, check.host(),
				check.port().value(), true);
		if (!check.tlsSkipVerify()) {
			SSLParameters parameters = tls.getSSLParameters();
			parameters.setEndpointIdentificationAlgorithm("HTTPS");
			tls.setSSLParameters(parameters);
		}
		return tls;
	}

	/**
	 * The request's bytes; the check's headers were checked to be printable ASCII, and
	 * the target's path and query go out percent-encoded where they are not (a check
	 * stored before targets were kept ASCII).
	 */
	private static byte[] request(CheckDefinition check) {
		URI uri = URI.create(URI.create(check.target()).toASCIIString());
		String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
		StringBuilder request = new StringBuilder(256).append(check.method())
			.append(' ')
			.append(path)
			.append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())
			.append(" HTTP/1.1\r\nHost: ")
			.append(uri.getRawAuthority())
			.append("\r\nUser-Agent: Ballast health check\r\nAccept: text/plain, text/*, */*\r\nConnection: close\r\n");
		check.headers()
			.forEach((name, values) -> values
				.forEach(value -> request.append(name).append(": ").append(value).append("\r\n")));
		return request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
	}

	private static SSLSocketFactory trustingEveryCertificate() {
		try {
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, new TrustManager[] { new X509TrustManager() {
				@Override
				public void checkClientTrusted(X509Certificate[] chain, String authType) {
					// A check with TLSSkipVerify asked for no verification.
				}

				@Override
				public void checkServerTrusted(X509Certificate[] chain, String authType) {
					// A check with TLSSkipVerify asked for no verification.
				}

				@Override
				public X509Certificate[] getAcceptedIssuers() {
					return new X509Certificate[0];
				}
			} }, new SecureRandom());
			return context.getSocketFactory();
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("TLS is not available", ex);
		}
	}

	/**
	 * A response read from the connection; the probe's deadline closes it, so no read
	 * waits past the timeout.
	 */
	private static final class Answer {

		private final InputStream in;

		private final byte[] buffer = new byte[2048];

		private int start;

		private int end;

		private long contentLength = -1;

		private boolean chunked;

		Answer(InputStream in) {
			this.in = in;
		}

		/** Reads the status line and the headers; returns the status code. */
		int status() throws IOException {
			String statusLine = line();
			// "HTTP/1.1 200 OK": the code is the three digits after the first space.
			int space = statusLine.indexOf(' ');
			if (!statusLine.startsWith("HTTP/") || space < 0 || statusLine.length() < space + 4) {
				throw new IOException("not an HTTP answer: " + printable(statusLine));
			}
			int code;
			try {
				code = Integer.parseInt(statusLine.substring(space + 1, space + 4));
			}
			catch (NumberFormatException ex) {
				throw new IOException("not an HTTP status: " + printable(statusLine));
			}
			int headBytes = statusLine.length();
			for (String header = line(); !header.isEmpty(); header = line()) {
				headBytes += header.length();
				if (headBytes > HEAD_BYTES) {
					throw new IOException("headers longer than " + HEAD_BYTES + " bytes");
				}
				int colon = header.indexOf(':');
				if (colon > 0) {
					String name = header.substring(0, colon).strip().toLowerCase(Locale.ROOT);
					String value = header.substring(colon + 1).strip();
					if (name.equals("content-length")) {
						contentLength = parseLength(value);
					}
					else if (name.equals("transfer-encoding")) {
						chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
					}
				}
			}
			return code;
		}

		/** The start of the body, at most {@link #BODY_BYTES}, stripped. */
		String body() throws IOException {
			ByteArrayOutputStream body = new ByteArrayOutputStream();
			if (chunked) {
				while (body.size() < BODY_BYTES) {
					String size = line();
					int extension = size.indexOf(';');
					long chunk = parseChunkSize(extension < 0 ? size.strip() : size.substring(0, extension).strip());
					if (chunk == 0) {
						break;
					}
					copy(body, Math.min(chunk, BODY_BYTES - body.size()));
					if (body.size() < BODY_BYTES) {
						line();
					}
				}
			}
			else {
				copy(body, contentLength < 0 ? BODY_BYTES : Math.min(contentLength, BODY_BYTES));
			}
			return body.toString(StandardCharsets.UTF_8).strip();
		}

		/** Copies up to {@code count} bytes of the body, fewer when it ends first. */
		private void copy(ByteArrayOutputStream into, long count) throws IOException {
			long wanted = count;
			while (wanted > 0 && fill()) {
				int take = (int) Math.min(wanted, end - start);
				into.write(buffer, start, take);
				start += take;
				wanted -= take;
			}
		}

		/** One line of the head (or of a chunk size), without its CRLF. */
		private String line() throws IOException {
			StringBuilder line = new StringBuilder();
			while (true) {
				if (!fill()) {
					throw new IOException("the answer ended early");
				}
				byte next = buffer[start++];
				if (next == '\n') {
					int length = line.length();
					return length > 0 && line.charAt(length - 1) == '\r' ? line.substring(0, length - 1)
							: line.toString();
				}
				line.append((char) (next & 0xff));
				if (line.length() > HEAD_BYTES) {
					throw new IOException("a header line longer than " + HEAD_BYTES + " bytes");
				}
			}
		}

		/** Makes bytes available; false at the end of the stream. */
		private boolean fill() throws IOException {
			if (start < end) {
				return true;
			}
			int read = in.read(buffer);
			if (read < 0) {
				return false;
			}
			start = 0;
			end = read;
			return true;
		}

		private static long parseLength(String value) throws IOException {
			try {
				long length = Long.parseLong(value);
				if (length < 0) {
					throw new IOException("a negative Content-Length: " + printable(value));
				}
				return length;
			}
			catch (NumberFormatException ex) {
				throw new IOException("a Content-Length that is not a number: " + printable(value));
			}
		}

		private static long parseChunkSize(String value) throws IOException {
			try {
				long size = Long.parseLong(value, 16);
				if (size < 0) {
					throw new IOException("a negative chunk size: " + printable(value));
				}
				return size;
			}
			catch (NumberFormatException ex) {
				throw new IOException("a chunk size that is not a number: " + printable(value));
			}
		}

		/** What the server sent, shortened and cleaned for the output. */
		private static String printable(String text) {
			String shown = text.length() > 80 ? text.substring(0, 80) + "…" : text;
			return shown.replaceAll("[^\\x20-\\x7e]", "?");
		}

	}

}
