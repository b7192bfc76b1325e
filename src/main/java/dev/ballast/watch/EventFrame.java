package dev.ballast.watch;

import java.nio.charset.StandardCharsets;

/**
 * The bytes of one server-sent event (WHATWG HTML, "Server-sent events"), kept framed as
 * a chunk of an HTTP/1.1 chunked body: {@code <size in hex>CRLF <event> CRLF}. A stream
 * writes them straight to its socket ({@link StreamConnection}), so a frame rendered once
 * for every stream of a service is framed once too, and a stream costs no allocation per
 * event. The event alone ({@link #offset()}, {@link #length()} within the same array) is
 * what a client that cannot take chunks (HTTP/1.0) is sent.
 */
final class EventFrame {

	static final EventFrame KEEPALIVE = framed(": keepalive\n\n".getBytes(StandardCharsets.UTF_8));

	/**
	 * The last chunk, which ends the body; nothing for a body that ends with its
	 * connection.
	 */
	static final EventFrame END = new EventFrame("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0, 0);

	private final byte[] chunk;

	private final int offset;

	private final int length;

	private EventFrame(byte[] chunk, int offset, int length) {
		this.chunk = chunk;
		this.offset = offset;
		this.length = length;
	}

	/**
	 * An event; with {@code name} and {@code data} both {@code null} only its id, which
	 * updates the client's last event id and dispatches nothing.
	 */
	static EventFrame of(String id, String name, String data) {
		StringBuilder frame = new StringBuilder(64 + (data == null ? 0 : data.length()));
		if (id != null) {
			frame.append("id: ").append(id).append('\n');
		}
		if (name != null) {
			frame.append("event: ").append(name).append('\n');
		}
		if (data != null) {
			// JSON as written by Jackson holds no raw line breaks; splitting keeps the
			// framing right for any data all the same.
			data.lines().forEach(line -> frame.append("data: ").append(line).append('\n'));
		}
		return framed(frame.append('\n').toString().getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Tells the client whether what the stream sends is the node's last known state
	 * because the database is unreachable ({@code true}), or live again ({@code false}).
	 * It carries no id, so the client's last event id stays where it is.
	 */
	static EventFrame stale(boolean stale) {
		return of(null, "stale", "{\"stale\":" + stale + "}");
	}

	/** Tells the client to reconnect (with its Last-Event-ID), and why. */
	static EventFrame reconnect(String reason, long retryMillis) {
		return framed(("retry: " + retryMillis + "\nevent: reconnect\ndata: {\"reason\":\"" + reason + "\"}\n\n")
			.getBytes(StandardCharsets.UTF_8));
	}

	private static EventFrame framed(byte[] event) {
		byte[] size = (Integer.toHexString(event.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
		byte[] chunk = new byte[size.length + event.length + 2];
		System.arraycopy(size, 0, chunk, 0, size.length);
		System.arraycopy(event, 0, chunk, size.length, event.length);
		chunk[chunk.length - 2] = '\r';
		chunk[chunk.length - 1] = '\n';
		return new EventFrame(chunk, size.length, event.length);
	}

	/** The event as a chunk of a chunked body, framing included; not to be changed. */
	byte[] chunk() {
		return chunk;
	}

	/** Where the event itself starts in {@link #chunk()}. */
	int offset() {
		return offset;
	}

	/** The length of the event itself. */
	int length() {
		return length;
	}

	/** The event itself, as the client reads it once the body is unchunked. */
	String text() {
		return new String(chunk, offset, length, StandardCharsets.UTF_8);
	}

}
