package dev.ballast.client;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Reads a {@code text/event-stream} as the WHATWG HTML standard defines it, from bytes in
 * chunks of any size: UTF-8 with invalid sequences replaced, lines ended by CRLF, LF or
 * CR, {@code :} comments, {@code data:} lines joined with {@code \n}, {@code id:}
 * remembered across events, and {@code retry:} reported to the listener.
 *
 * <p>
 * One departure from the standard: a block with an {@code id:} but no data, which the
 * standard only remembers, is also handed to the listener as an event without data,
 * because the registry sends one when a settings change moves a service's revision and a
 * client must record and acknowledge that position. An unfinished event when the stream
 * ends is never handed over.
 *
 * <p>
 * One parser reads one connection; it is not safe for use by several threads.
 */
final class EventStreamParser {

	/** Receives what the stream says, in order. */
	interface Listener {

		void event(ServerSentEvent event);

		void retry(Duration delay);

		/**
		 * A comment line, without its leading colon. The client has no use for them; the
		 * registry's end-to-end tests, which read streams with this parser, count
		 * keepalives by them.
		 */
		default void comment(String text) {
		}

	}

	private static final char BYTE_ORDER_MARK = '\uFEFF';

	private final Listener listener;

	private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
		.onMalformedInput(CodingErrorAction.REPLACE)
		.onUnmappableCharacter(CodingErrorAction.REPLACE);

	private final CharBuffer decoded = CharBuffer.allocate(8192);

	private ByteBuffer undecoded = ByteBuffer.allocate(0);

	private final StringBuilder line = new StringBuilder();

	private final StringBuilder data = new StringBuilder();

	private String type = "";

	private String lastEventId;

	/**
	 * The id of the event being read; it becomes the last event id only once that ends.
	 */
	private String pendingId;

	private boolean idInBlock;

	private boolean afterCarriageReturn;

	private boolean atStart = true;

	/**
	 * @param lastEventId the id the previous connection ended with, {@code ""} for none;
	 * it stays the last event id until an event of this stream sets another
	 */
	EventStreamParser(String lastEventId, Listener listener) {
		this.lastEventId = lastEventId;
		this.pendingId = lastEventId;
		this.listener = listener;
	}

	/**
	 * The id of the last complete event: an id read in an event the stream cut off before
	 * its end does not count, as that event was never applied.
	 */
	String lastEventId() {
		return lastEventId;
	}

	void accept(byte[] bytes, int offset, int length) {
		ByteBuffer input = withUndecoded(bytes, offset, length);
		CoderResult result;
		do {
			result = decoder.decode(input, decoded, false);
			decoded.flip();
			while (decoded.hasRemaining()) {
				accept(decoded.get());
			}
			decoded.clear();
		}
		while (result.isOverflow());
		// What is left is the start of a character whose other bytes are in the next
		// chunk.
		undecoded = ByteBuffer.allocate(input.remaining()).put(input).flip();
	}

	private ByteBuffer withUndecoded(byte[] bytes, int offset, int length) {
		return ByteBuffer.allocate(undecoded.remaining() + length).put(undecoded).put(bytes, offset, length).flip();
	}

	private void accept(char c) {
		boolean first = atStart;
		atStart = false;
		if (first && c == BYTE_ORDER_MARK) {
			return;
		}
		if (c == '\n' && afterCarriageReturn) {
			afterCarriageReturn = false;
			return;
		}
		afterCarriageReturn = c == '\r';
		if (c == '\r' || c == '\n') {
			endLine();
		}
		else {
			line.append(c);
		}
	}

	private void endLine() {
		String text = line.toString();
		line.setLength(0);
		if (text.isEmpty()) {
			dispatch();
		}
		else if (text.charAt(0) == ':') {
			listener.comment(text.substring(1));
		}
		else {
			int colon = text.indexOf(':');
			String field = (colon < 0) ? text : text.substring(0, colon);
			String value = (colon < 0) ? "" : text.substring(colon + 1);
			field(field, value.startsWith(" ") ? value.substring(1) : value);
		}
	}

	private void field(String name, String value) {
		switch (name) {
			case "event" -> type = value;
			case "data" -> data.append(value).append('\n');
			case "id" -> {
				// The standard ignores an id containing NUL, so that it can never be
				// sent back in a Last-Event-ID header.
				if (value.indexOf('\0') < 0) {
					pendingId = value;
					idInBlock = true;
				}
			}
			case "retry" -> retry(value);
			default -> {
				// Unknown fields are ignored, as the standard requires.
			}
		}
	}

	private void retry(String value) {
		if (!value.isEmpty() && value.chars().allMatch((c) -> c >= '0' && c <= '9')) {
			try {
				listener.retry(Duration.ofMillis(Long.parseLong(value)));
			}
			catch (NumberFormatException ex) {
				// Too many digits for a long: not a delay anyone meant.
			}
		}
	}

	private void dispatch() {
		lastEventId = pendingId;
		boolean hasData = !data.isEmpty();
		boolean idOnly = !hasData && idInBlock;
		String eventType = type.isEmpty() ? ServerSentEvent.MESSAGE : type;
		String eventData = hasData ? data.substring(0, data.length() - 1) : null;
		data.setLength(0);
		type = "";
		idInBlock = false;
		if (hasData || idOnly) {
			listener.event(new ServerSentEvent(lastEventId, eventType, eventData));
		}
	}

}
