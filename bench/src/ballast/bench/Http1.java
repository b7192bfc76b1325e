package ballast.bench;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 keep-alive connection over a plain blocking socket: the load generator of
 * bench/compare.sh sends every peer the same bytes through it, so that the client's cost is
 * the same for all of them and small (no HTTP library between the clock and the socket).
 * Bodies are read by Content-Length or chunked; a streamed body (SSE, etcd's watch) is read
 * line by line. A connection that breaks or answers "Connection: close" is opened again on
 * the next exchange.
 */
final class Http1 implements Closeable {

	private final String host;

	private final int port;

	private final int timeoutMillis;

	private final byte[] hostHeader;

	private Socket socket;

	private InputStream in;

	private OutputStream out;

	private final byte[] buffer;

	private int position;

	private int limit;

	private boolean chunked;

	private long remaining;

	private boolean mustClose;

	/** The last answer's headers (lower-case names), when asked for with {@link #keepHeaders}. */
	private java.util.Map<String, String> answerHeaders;

	Http1(URI base, int timeoutMillis, int bufferSize) {
		this.host = base.getHost();
		this.port = base.getPort();
		this.timeoutMillis = timeoutMillis;
		this.hostHeader = ("Host: " + host + ":" + port + "\r\n").getBytes(StandardCharsets.US_ASCII);
		this.buffer = new byte[bufferSize];
	}

	Http1(URI base) {
		this(base, 10_000, 16 * 1024);
	}

	record Response(int status, String body) {
	}

	/**
	 * Keeps each answer's headers for {@link #header} (a checker wants Retry-After; a
	 * benchmark does not pay for a map per answer).
	 */
	Http1 keepHeaders() {
		answerHeaders = new java.util.HashMap<>();
		return this;
	}

	/** A header of the last answer, or null; only after {@link #keepHeaders}. */
	String header(String name) {
		return answerHeaders == null ? null : answerHeaders.get(name.toLowerCase(java.util.Locale.ROOT));
	}

	/** Sends one request and reads the whole answer. */
	Response exchange(String method, String path, String headers, String body) throws IOException {
		try {
			int status = send(method, path, headers, body);
			String answer = readBody();
			if (mustClose) {
				close();
			}
			return new Response(status, answer);
		}
		catch (IOException ex) {
			close();
			throw ex;
		}
	}

	/**
	 * Sends a request whose answer is a stream and returns its status once the headers are
	 * read; the body is then read with {@link #readLine()}.
	 */
	int openStream(String method, String path, String headers, String body) throws IOException {
		return send(method, path, headers, body);
	}

	/** The next line of a streamed body without its line end; null at its end. */
	String readLine() throws IOException {
		StringBuilder line = null;
		byte[] bytes = new byte[256];
		int length = 0;
		while (true) {
			int b = bodyByte();
			if (b < 0) {
				return length == 0 ? null : new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			if (b == '\n') {
				if (length > 0 && bytes[length - 1] == '\r') {
					length--;
				}
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			if (length == bytes.length) {
				bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2);
			}
			bytes[length++] = (byte) b;
		}
	}

	private int send(String method, String path, String headers, String body) throws IOException {
		if (socket == null) {
			connect();
		}
		byte[] payload = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
		StringBuilder head = new StringBuilder(160 + headers.length()).append(method)
			.append(' ')
			.append(path)
			.append(" HTTP/1.1\r\n");
		byte[] start = head.toString().getBytes(StandardCharsets.US_ASCII);
		String rest = headers + (payload == null ? (method.equals("GET") ? "" : "Content-Length: 0\r\n")
				: "Content-Length: " + payload.length + "\r\n") + "\r\n";
		byte[] tail = rest.getBytes(StandardCharsets.US_ASCII);
		byte[] request = new byte[start.length + hostHeader.length + tail.length
				+ (payload == null ? 0 : payload.length)];
		System.arraycopy(start, 0, request, 0, start.length);
		System.arraycopy(hostHeader, 0, request, start.length, hostHeader.length);
		System.arraycopy(tail, 0, request, start.length + hostHeader.length, tail.length);
		if (payload != null) {
			System.arraycopy(payload, 0, request, request.length - payload.length, payload.length);
		}
		out.write(request);
		out.flush();
		String status = headerLine();
		if (!status.startsWith("HTTP/1.1 ") && !status.startsWith("HTTP/1.0 ")) {
			throw new IOException("not an HTTP answer: " + status);
		}
		int code = Integer.parseInt(status.substring(9, 12));
		chunked = false;
		remaining = 0;
		mustClose = status.startsWith("HTTP/1.0");
		if (answerHeaders != null) {
			answerHeaders.clear();
		}
		for (String line = headerLine(); !line.isEmpty(); line = headerLine()) {
			int colon = line.indexOf(':');
			if (colon < 0) {
				continue;
			}
			String name = line.substring(0, colon).trim();
			String value = line.substring(colon + 1).trim();
			if (answerHeaders != null) {
				answerHeaders.put(name.toLowerCase(java.util.Locale.ROOT), value);
			}
			if (name.equalsIgnoreCase("Content-Length")) {
				remaining = Long.parseLong(value);
			}
			else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
				chunked = true;
				remaining = -1;
			}
			else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
				mustClose = true;
			}
		}
		return code;
	}

	private String readBody() throws IOException {
		byte[] bytes = new byte[chunked ? 1024 : (int) remaining];
		int length = 0;
		for (int b = bodyByte(); b >= 0; b = bodyByte()) {
			if (length == bytes.length) {
				bytes = java.util.Arrays.copyOf(bytes, Math.max(64, bytes.length * 2));
			}
			bytes[length++] = (byte) b;
		}
		return new String(bytes, 0, length, StandardCharsets.UTF_8);
	}

	/** The next byte of the body, -1 at its end. */
	private int bodyByte() throws IOException {
		if (!chunked) {
			if (remaining <= 0) {
				return -1;
			}
			remaining--;
			return rawByte();
		}
		if (remaining == 0) {
			// The CRLF after a chunk's data.
			headerLine();
			remaining = -1;
		}
		if (remaining < 0) {
			String size = headerLine();
			int extension = size.indexOf(';');
			remaining = Long.parseLong((extension < 0 ? size : size.substring(0, extension)).trim(), 16);
			if (remaining == 0) {
				// Trailers, then the blank line.
				while (!headerLine().isEmpty()) {
					// skipped
				}
				chunked = false;
				return -1;
			}
		}
		remaining--;
		return rawByte();
	}

	private String headerLine() throws IOException {
		StringBuilder line = new StringBuilder();
		for (int b = rawByte(); b != '\n'; b = rawByte()) {
			if (b != '\r') {
				line.append((char) b);
			}
		}
		return line.toString();
	}

	private int rawByte() throws IOException {
		if (position == limit) {
			limit = in.read(buffer, 0, buffer.length);
			position = 0;
			if (limit <= 0) {
				limit = 0;
				throw new EOFException("connection closed by " + host + ":" + port);
			}
		}
		return buffer[position++] & 0xff;
	}

	private void connect() throws IOException {
		Socket opened = new Socket();
		opened.setTcpNoDelay(true);
		opened.connect(new InetSocketAddress(host, port), timeoutMillis);
		opened.setSoTimeout(timeoutMillis);
		socket = opened;
		in = opened.getInputStream();
		out = opened.getOutputStream();
		position = 0;
		limit = 0;
	}

	/** Lets a stream wait for its next event longer than a request waits for its answer. */
	void streamTimeout(int millis) throws IOException {
		if (socket != null) {
			socket.setSoTimeout(millis);
		}
	}

	@Override
	public void close() {
		if (socket != null) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// Closing a broken socket: nothing left to do.
			}
			socket = null;
		}
	}

}
