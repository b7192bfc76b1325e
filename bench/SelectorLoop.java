import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/** One selector thread and the streams it owns. */
final class SelectorLoop implements Runnable {

	final WatchClient client;

	final Selector selector;

	final ConcurrentLinkedQueue<Watch> incoming = new ConcurrentLinkedQueue<>();

	final ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);

	final byte[] bytes = new byte[256 * 1024];

	final Thread thread;

	SelectorLoop(WatchClient client, int number) throws IOException {
		this.client = client;
		this.selector = Selector.open();
		this.thread = Thread.ofPlatform().name("watch-selector-" + number).daemon().unstarted(this);
	}

	void add(Watch watch) {
		incoming.add(watch);
		selector.wakeup();
	}

	@Override
	public void run() {
		try {
			while (!client.stopping) {
				selector.select(100);
				for (Watch watch = incoming.poll(); watch != null; watch = incoming.poll()) {
					register(watch);
				}
				Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
				while (keys.hasNext()) {
					SelectionKey key = keys.next();
					keys.remove();
					Watch watch = (Watch) key.attachment();
					try {
						if (!key.isValid()) {
							continue;
						}
						if (key.isConnectable()) {
							connected(key, watch);
						}
						else if (key.isWritable()) {
							sendRequest(key, watch);
						}
						else if (key.isReadable()) {
							read(key, watch);
						}
					}
					catch (IOException ex) {
						if (!client.stopping) {
							client.fail(watch, watch.ready() ? "io-error" : "open-failed", ex.toString());
						}
						close(key, watch);
					}
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void register(Watch watch) {
		try {
			int interest = watch.channel.isConnected() ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT;
			watch.channel.register(selector, interest, watch);
		}
		catch (ClosedChannelException ex) {
			client.fail(watch, "open-failed", ex.toString());
		}
	}

	private void connected(SelectionKey key, Watch watch) throws IOException {
		if (watch.channel.finishConnect()) {
			key.interestOps(SelectionKey.OP_WRITE);
			sendRequest(key, watch);
		}
	}

	private void sendRequest(SelectionKey key, Watch watch) throws IOException {
		watch.channel.write(watch.request);
		if (!watch.request.hasRemaining()) {
			watch.request = null;
			key.interestOps(SelectionKey.OP_READ);
		}
	}

	private void read(SelectionKey key, Watch watch) throws IOException {
		// Bounded, so one busy stream cannot starve the others on this thread.
		for (int rounds = 0; rounds < 4; rounds++) {
			buffer.clear();
			int n = watch.channel.read(buffer);
			if (n < 0) {
				if (!client.stopping) {
					client.fail(watch, watch.ready() ? "closed-by-server" : "open-failed",
							"connection closed %s, %.1f s after its snapshot, at id %d".formatted(
									watch.phase == Watch.DONE ? "after the last chunk" : "mid-stream",
									watch.ready() ? (System.nanoTime() - watch.readyNanos) / 1e9 : 0.0,
									watch.lastId));
				}
				close(key, watch);
				return;
			}
			if (n == 0) {
				return;
			}
			long now = System.nanoTime();
			buffer.flip();
			buffer.get(bytes, 0, n);
			String problem = parse(watch, bytes, n, now);
			if (problem != null) {
				// "HTTP 503": the node's watcher cap (ballast.watch.max-watchers) or a slow feed.
				client.fail(watch, problem.startsWith("HTTP ") ? "http-" + problem.substring(5) : "protocol",
						problem);
				close(key, watch);
				return;
			}
			if (n < buffer.capacity()) {
				return;
			}
		}
	}

	private void close(SelectionKey key, Watch watch) {
		watch.closed = true;
		key.cancel();
		try {
			watch.channel.close();
		}
		catch (IOException ex) {
			// Closing is all that is left to do.
		}
	}

	/** Feeds bytes through the HTTP, chunk and SSE parsers; a problem ends the stream. */
	private String parse(Watch w, byte[] in, int n, long now) {
		int i = 0;
		while (i < n) {
			switch (w.phase) {
				case Watch.HEAD -> {
					byte b = in[i++];
					if (w.headLength == w.head.length) {
						if (w.head.length >= 16384) {
							return "response head longer than 16 KiB";
						}
						w.head = Arrays.copyOf(w.head, w.head.length * 2);
					}
					w.head[w.headLength++] = b;
					if (b == '\n' && w.headLength >= 4 && w.head[w.headLength - 2] == '\r'
							&& w.head[w.headLength - 3] == '\n' && w.head[w.headLength - 4] == '\r') {
						String problem = responseHead(w);
						w.head = null;
						if (problem != null) {
							return problem;
						}
					}
				}
				case Watch.CHUNK_SIZE -> {
					byte b = in[i++];
					int digit = Character.digit(b, 16);
					if (digit >= 0) {
						if (w.chunkRemaining > (Long.MAX_VALUE >> 4)) {
							return "chunk size overflows";
						}
						w.chunkRemaining = (w.chunkRemaining << 4) | digit;
						w.chunkSizeSeen = true;
					}
					else if (b == ';' || b == ' ' || b == '\t') {
						w.phase = Watch.CHUNK_EXT;
					}
					else if (b == '\r') {
						w.phase = Watch.CHUNK_EXT;
					}
					else if (b == '\n') {
						String problem = chunkSizeLine(w);
						if (problem != null) {
							return problem;
						}
					}
					else {
						return "bad byte 0x%02x in a chunk size".formatted(b & 0xff);
					}
				}
				case Watch.CHUNK_EXT -> {
					if (in[i++] == '\n') {
						String problem = chunkSizeLine(w);
						if (problem != null) {
							return problem;
						}
					}
				}
				case Watch.CHUNK_DATA -> {
					int take = (int) Math.min(w.chunkRemaining, n - i);
					String problem = sse(w, in, i, take, now);
					if (problem != null) {
						return problem;
					}
					i += take;
					w.chunkRemaining -= take;
					if (w.chunkRemaining == 0) {
						w.phase = Watch.CHUNK_CR;
					}
				}
				case Watch.CHUNK_CR -> {
					if (in[i++] != '\r') {
						return "chunk data not followed by CRLF";
					}
					w.phase = Watch.CHUNK_LF;
				}
				case Watch.CHUNK_LF -> {
					if (in[i++] != '\n') {
						return "chunk data not followed by CRLF";
					}
					w.phase = Watch.CHUNK_SIZE;
					w.chunkRemaining = 0;
					w.chunkSizeSeen = false;
				}
				case Watch.TRAILER -> {
					byte b = in[i++];
					if (b == '\n') {
						if (w.trailerLineLength == 0) {
							w.phase = Watch.DONE;
						}
						w.trailerLineLength = 0;
					}
					else if (b != '\r') {
						w.trailerLineLength++;
					}
				}
				case Watch.IDENTITY -> {
					String problem = sse(w, in, i, n - i, now);
					if (problem != null) {
						return problem;
					}
					i = n;
				}
				case Watch.DONE -> {
					return "bytes after the last chunk";
				}
				default -> throw new IllegalStateException("phase " + w.phase);
			}
		}
		return null;
	}

	private String responseHead(Watch w) {
		String head = new String(w.head, 0, w.headLength, StandardCharsets.ISO_8859_1);
		String[] lines = head.split("\r\n");
		String[] status = lines[0].split(" ", 3);
		if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
			return "not an HTTP/1.x response: " + lines[0];
		}
		if (!status[1].equals("200")) {
			// 503 when the node's watcher cap is reached.
			return "HTTP " + status[1];
		}
		boolean chunked = false;
		boolean eventStream = false;
		for (int k = 1; k < lines.length; k++) {
			String lower = lines[k].toLowerCase(Locale.ROOT);
			if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
				chunked = true;
			}
			if (lower.startsWith("content-type:") && lower.contains("text/event-stream")) {
				eventStream = true;
			}
			if (lower.startsWith("content-length:")) {
				return "a watch response with a Content-Length";
			}
		}
		if (!eventStream) {
			return "Content-Type is not text/event-stream";
		}
		w.phase = chunked ? Watch.CHUNK_SIZE : Watch.IDENTITY;
		return null;
	}

	private static String chunkSizeLine(Watch w) {
		if (!w.chunkSizeSeen) {
			return "empty chunk size line";
		}
		w.phase = w.chunkRemaining == 0 ? Watch.TRAILER : Watch.CHUNK_DATA;
		return null;
	}

	/** Server-sent event lines (WHATWG HTML): CR, LF or CRLF ends a line; a blank line an event. */
	private String sse(Watch w, byte[] in, int from, int length, long now) {
		int end = from + length;
		for (int i = from; i < end; i++) {
			byte b = in[i];
			if (b == '\n' && w.afterCR) {
				w.afterCR = false;
				continue;
			}
			w.afterCR = b == '\r';
			if (b == '\n' || b == '\r') {
				String problem = endOfLine(w, now);
				if (problem != null) {
					return problem;
				}
			}
			else if (w.lineLength < Watch.LINE_PREFIX) {
				w.line[w.lineLength++] = b;
			}
			else {
				w.lineOverflow = true;
			}
		}
		return null;
	}

	private String endOfLine(Watch w, long now) {
		int length = w.lineLength;
		boolean overflow = w.lineOverflow;
		w.lineLength = 0;
		w.lineOverflow = false;
		if (length == 0) {
			return dispatch(w, now);
		}
		byte[] l = w.line;
		if (l[0] == ':') {
			w.keepalives++;
			return null;
		}
		if (startsWith(l, length, "id")) {
			if (overflow) {
				return "an id line longer than " + Watch.LINE_PREFIX + " bytes";
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
				int digit = l[k] - '0';
				if (digit < 0 || digit > 9) {
					return "a non-numeric id on a single-service stream: "
							+ new String(l, 0, length, StandardCharsets.UTF_8);
				}
				id = id * 10 + digit;
			}
			w.eventId = id;
		}
		else if (startsWith(l, length, "event")) {
			int at = valueStart(l, length, 5);
			if (at < 0) {
				return null;
			}
			String name = new String(l, at, length - at, StandardCharsets.UTF_8);
			w.eventKind = switch (name) {
				case "snapshot" -> Watch.Kind.SNAPSHOT;
				case "upsert" -> Watch.Kind.UPSERT;
				case "remove" -> Watch.Kind.REMOVE;
				case "reconnect" -> Watch.Kind.RECONNECT;
				default -> Watch.Kind.OTHER;
			};
		}
		else if (startsWith(l, length, "data")) {
			if (valueStart(l, length, 4) >= 0) {
				w.eventHasData = true;
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

	private String dispatch(Watch w, long now) {
		long id = w.eventId;
		Watch.Kind kind = w.eventKind;
		boolean data = w.eventHasData;
		w.eventId = -1;
		w.eventKind = Watch.Kind.NONE;
		w.eventHasData = false;
		if (id < 0 && kind == Watch.Kind.NONE && !data) {
			return null;
		}
		if (kind == Watch.Kind.RECONNECT) {
			w.reconnects++;
			return null;
		}
		if (id < 0) {
			return "a " + kind + " event without an id";
		}
		if (kind == Watch.Kind.SNAPSHOT) {
			if (w.snapshotRevision < 0) {
				w.snapshotRevision = id;
				w.lastId = id;
				w.readyNanos = now;
				w.received = new long[client.capacity];
				client.ready.incrementAndGet();
			}
			else {
				// The node replaces a backlog with a fresh snapshot when a stream falls a
				// whole queue behind: the events in between were never sent.
				w.resyncs++;
				w.lastId = Math.max(w.lastId, id);
			}
			return null;
		}
		if (w.snapshotRevision < 0) {
			return "a " + kind + " event (id " + id + ") before the snapshot";
		}
		w.events++;
		long last = w.lastId;
		if (id <= last) {
			w.outOfOrder++;
		}
		else {
			if (id != last + 1) {
				w.gaps += id - last - 1;
			}
			w.lastId = id;
		}
		long index = id - w.snapshotRevision - 1;
		if (index >= 0 && index < w.received.length) {
			if (w.received[(int) index] == 0) {
				w.received[(int) index] = now;
			}
			else {
				w.duplicates++;
			}
		}
		else {
			w.beyondCapacity++;
		}
		return null;
	}

}
