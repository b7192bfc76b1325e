package ballast.bench;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One Ballast watch stream of {@code WatchLatency}: its server-sent event lines, parsed
 * byte by byte as they arrive, with what it received and every irregularity counted
 * (the connection, the head and the chunks are {@link WatchStream}'s). Touched only by
 * its selector thread until the threads are joined.
 */
final class Watch extends WatchStream {

	static final int LINE_PREFIX = 48;

	enum Kind {

		NONE, SNAPSHOT, UPSERT, REMOVE, RECONNECT, OTHER

	}

	final int number;

	private final WatchClient client;

	// Only a line's first bytes are kept: enough for "id: <revision>" and
	// "event: snapshot"; data lines are skipped, not buffered.
	final byte[] line = new byte[LINE_PREFIX];

	int lineLength;

	boolean lineOverflow;

	boolean afterCR;

	long eventId = -1;

	Kind eventKind = Kind.NONE;

	boolean eventHasData;

	long snapshotRevision = -1;

	volatile long lastId = -1;

	long readyNanos;

	long[] received;

	long events;

	long keepalives;

	long gaps;

	long outOfOrder;

	long duplicates;

	long resyncs;

	long reconnects;

	long beyondCapacity;

	String failure;

	Watch(int number, SocketChannel channel, ByteBuffer request, WatchClient client) {
		super(channel, request);
		this.number = number;
		this.client = client;
	}

	@Override
	boolean ready() {
		return snapshotRevision >= 0;
	}

	@Override
	String headers(String[] lowerCaseLines) {
		boolean eventStream = false;
		for (String line : lowerCaseLines) {
			if (line.startsWith("content-type:") && line.contains("text/event-stream")) {
				eventStream = true;
			}
			if (line.startsWith("content-length:")) {
				return "a watch response with a Content-Length";
			}
		}
		return eventStream ? null : "Content-Type is not text/event-stream";
	}

	@Override
	String closedDetail() {
		return "%s, %.1f s after its snapshot, at id %d".formatted(super.closedDetail(),
				ready() ? (System.nanoTime() - readyNanos) / 1e9 : 0.0, lastId);
	}

	/** Server-sent event lines (WHATWG HTML): CR, LF or CRLF ends a line; a blank line an event. */
	@Override
	String body(byte[] in, int from, int length, long now) {
		int end = from + length;
		for (int i = from; i < end; i++) {
			byte b = in[i];
			if (b == '\n' && afterCR) {
				afterCR = false;
				continue;
			}
			afterCR = b == '\r';
			if (b == '\n' || b == '\r') {
				String problem = endOfLine(now);
				if (problem != null) {
					return problem;
				}
			}
			else if (lineLength < LINE_PREFIX) {
				line[lineLength++] = b;
			}
			else {
				lineOverflow = true;
			}
		}
		return null;
	}

	private String endOfLine(long now) {
		int length = lineLength;
		boolean overflow = lineOverflow;
		lineLength = 0;
		lineOverflow = false;
		if (length == 0) {
			return dispatch(now);
		}
		byte[] l = line;
		if (l[0] == ':') {
			keepalives++;
			return null;
		}
		if (startsWith(l, length, "id")) {
			if (overflow) {
				return "an id line longer than " + LINE_PREFIX + " bytes";
			}
			int at = valueStart(l, length, 2);
			if (at < 0) {
				return null;
			}
			long id = 0;
			if (at == length) {
				return "an empty id";
			}
			for (int k = at; k < length; k++) {
				if (l[k] == '@' && k > at) {
					// After a failover, "<revision>@<history>": the revision is what counts.
					break;
				}
				int digit = l[k] - '0';
				if (digit < 0 || digit > 9) {
					return "a non-numeric id on a single-service stream: "
							+ new String(l, 0, length, StandardCharsets.UTF_8);
				}
				id = id * 10 + digit;
			}
			eventId = id;
		}
		else if (startsWith(l, length, "event")) {
			int at = valueStart(l, length, 5);
			if (at < 0) {
				return null;
			}
			String name = new String(l, at, length - at, StandardCharsets.UTF_8);
			eventKind = switch (name) {
				case "snapshot" -> Kind.SNAPSHOT;
				case "upsert" -> Kind.UPSERT;
				case "remove" -> Kind.REMOVE;
				case "reconnect" -> Kind.RECONNECT;
				default -> Kind.OTHER;
			};
		}
		else if (startsWith(l, length, "data")) {
			if (valueStart(l, length, 4) >= 0) {
				eventHasData = true;
			}
		}
		return null;
	}

	/** Where the value of field {@code name} (of that length) starts, or -1 for another field. */
	private static int valueStart(byte[] l, int length, int nameLength) {
		if (length == nameLength) {
			return length;
		}
		if (l[nameLength] != ':') {
			return -1;
		}
		int at = nameLength + 1;
		return at < length && l[at] == ' ' ? at + 1 : at;
	}

	private static boolean startsWith(byte[] l, int length, String name) {
		if (length < name.length()) {
			return false;
		}
		for (int k = 0; k < name.length(); k++) {
			if (l[k] != name.charAt(k)) {
				return false;
			}
		}
		return true;
	}

	private String dispatch(long now) {
		long id = eventId;
		Kind kind = eventKind;
		boolean data = eventHasData;
		eventId = -1;
		eventKind = Kind.NONE;
		eventHasData = false;
		if (id < 0 && kind == Kind.NONE && !data) {
			return null;
		}
		if (kind == Kind.RECONNECT) {
			reconnects++;
			return null;
		}
		if (id < 0) {
			return "a " + kind + " event without an id";
		}
		if (kind == Kind.SNAPSHOT) {
			if (snapshotRevision < 0) {
				snapshotRevision = id;
				lastId = id;
				readyNanos = now;
				received = new long[client.capacity];
				client.ready.incrementAndGet();
			}
			else {
				// The node replaces a backlog with a fresh snapshot when a stream falls a
				// whole queue behind: the events in between were never sent.
				resyncs++;
				lastId = Math.max(lastId, id);
			}
			return null;
		}
		if (snapshotRevision < 0) {
			return "a " + kind + " event (id " + id + ") before the snapshot";
		}
		events++;
		long last = lastId;
		if (id <= last) {
			outOfOrder++;
		}
		else {
			if (id != last + 1) {
				gaps += id - last - 1;
			}
			lastId = id;
		}
		long index = id - snapshotRevision - 1;
		if (index >= 0 && index < received.length) {
			if (received[(int) index] == 0) {
				received[(int) index] = now;
			}
			else {
				duplicates++;
			}
		}
		else {
			beyondCapacity++;
		}
		return null;
	}
}
