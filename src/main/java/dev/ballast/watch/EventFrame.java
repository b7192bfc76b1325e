package dev.ballast.watch;

import java.nio.charset.StandardCharsets;

/** The bytes of server-sent events (WHATWG HTML, "Server-sent events"). */
final class EventFrame {

	static final byte[] KEEPALIVE = ": keepalive\n\n".getBytes(StandardCharsets.UTF_8);

	private EventFrame() {
	}

	/**
	 * An event; with {@code name} and {@code data} both {@code null} only its id, which
	 * updates the client's last event id and dispatches nothing.
	 */
	static byte[] of(String id, String name, String data) {
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
		return frame.append('\n').toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Tells the client whether what the stream sends is the node's last known state
	 * because the database is unreachable ({@code true}), or live again ({@code false}).
	 * It carries no id, so the client's last event id stays where it is.
	 */
	static byte[] stale(boolean stale) {
		return of(null, "stale", "{\"stale\":" + stale + "}");
	}

	/** Tells the client to reconnect (with its Last-Event-ID), and why. */
	static byte[] reconnect(String reason, long retryMillis) {
		return ("retry: " + retryMillis + "\nevent: reconnect\ndata: {\"reason\":\"" + reason + "\"}\n\n")
			.getBytes(StandardCharsets.UTF_8);
	}

}
