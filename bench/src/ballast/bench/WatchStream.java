package ballast.bench;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One watch stream's connection as every watch benchmark reads it: its request, then the
 * HTTP/1.1 response head and the chunked framing, parsed byte by byte in place as the
 * bytes arrive; what the body says is the subclass's ({@link #body}): Ballast's
 * server-sent events ({@link Watch}, {@code CompareWatch}) or etcd's JSON messages. Read
 * by one {@link SelectorLoop} thread, which owns it until the threads are joined.
 */
abstract class WatchStream {

	static final int HEAD = 0, CHUNK_SIZE = 1, CHUNK_EXT = 2, CHUNK_DATA = 3, CHUNK_CR = 4, CHUNK_LF = 5,
			TRAILER = 6, IDENTITY = 7, DONE = 8;

	final SocketChannel channel;

	/** The request, until it is sent. */
	ByteBuffer request;

	int phase = HEAD;

	private byte[] head = new byte[512];

	private int headLength;

	private long chunkRemaining;

	private boolean chunkSizeSeen;

	private int trailerLineLength;

	volatile boolean closed;

	WatchStream(SocketChannel channel, ByteBuffer request) {
		this.channel = channel;
		this.request = request;
	}

	/** The stream has received its first event (snapshot, or etcd's "created"). */
	abstract boolean ready();

	/**
	 * Parses {@code length} bytes of the body (unchunked) that arrived at {@code now}; a
	 * problem that ends the stream, or null.
	 */
	abstract String body(byte[] in, int from, int length, long now);

	/**
	 * The response's header lines (lower case), after a {@code 200}; a problem that ends
	 * the stream, or null.
	 */
	String headers(String[] lowerCaseLines) {
		return null;
	}

	/** Why the server's closing the connection is a failure, for the report. */
	String closedDetail() {
		return "connection closed %s".formatted(phase == DONE ? "after the last chunk" : "mid-stream");
	}

	/**
	 * Feeds bytes through the HTTP head, the chunked framing and {@link #body}; a problem
	 * that ends the stream, or null. A problem from the head that is a status other than
	 * {@code 200} reads {@code "HTTP <status>"}.
	 */
	final String feed(byte[] in, int n, long now) {
		int i = 0;
		while (i < n) {
			switch (phase) {
				case HEAD -> {
					byte b = in[i++];
					if (headLength == head.length) {
						if (head.length >= 16384) {
							return "response head longer than 16 KiB";
						}
						head = Arrays.copyOf(head, head.length * 2);
					}
					head[headLength++] = b;
					if (b == '\n' && headLength >= 4 && head[headLength - 2] == '\r' && head[headLength - 3] == '\n'
							&& head[headLength - 4] == '\r') {
						String problem = responseHead();
						head = null;
						if (problem != null) {
							return problem;
						}
					}
				}
				case CHUNK_SIZE -> {
					byte b = in[i++];
					int digit = Character.digit(b, 16);
					if (digit >= 0) {
						if (chunkRemaining > (Long.MAX_VALUE >> 4)) {
							return "chunk size overflows";
						}
						chunkRemaining = (chunkRemaining << 4) | digit;
						chunkSizeSeen = true;
					}
					else if (b == ';' || b == ' ' || b == '\t' || b == '\r') {
						phase = CHUNK_EXT;
					}
					else if (b == '\n') {
						String problem = chunkSizeLine();
						if (problem != null) {
							return problem;
						}
					}
					else {
						return "bad byte 0x%02x in a chunk size".formatted(b & 0xff);
					}
				}
				case CHUNK_EXT -> {
					if (in[i++] == '\n') {
						String problem = chunkSizeLine();
						if (problem != null) {
							return problem;
						}
					}
				}
				case CHUNK_DATA -> {
					int take = (int) Math.min(chunkRemaining, n - i);
					String problem = body(in, i, take, now);
					if (problem != null) {
						return problem;
					}
					i += take;
					chunkRemaining -= take;
					if (chunkRemaining == 0) {
						phase = CHUNK_CR;
					}
				}
				case CHUNK_CR -> {
					if (in[i++] != '\r') {
						return "chunk data not followed by CRLF";
					}
					phase = CHUNK_LF;
				}
				case CHUNK_LF -> {
					if (in[i++] != '\n') {
						return "chunk data not followed by CRLF";
					}
					phase = CHUNK_SIZE;
					chunkRemaining = 0;
					chunkSizeSeen = false;
				}
				case TRAILER -> {
					byte b = in[i++];
					if (b == '\n') {
						if (trailerLineLength == 0) {
							phase = DONE;
						}
						trailerLineLength = 0;
					}
					else if (b != '\r') {
						trailerLineLength++;
					}
				}
				case IDENTITY -> {
					String problem = body(in, i, n - i, now);
					if (problem != null) {
						return problem;
					}
					i = n;
				}
				case DONE -> {
					return "bytes after the last chunk";
				}
				default -> throw new IllegalStateException("phase " + phase);
			}
		}
		return null;
	}

	private String responseHead() {
		String[] lines = new String(head, 0, headLength, StandardCharsets.ISO_8859_1).split("\r\n");
		String[] status = lines[0].split(" ", 3);
		if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
			return "not an HTTP/1.x response: " + lines[0];
		}
		if (!status[1].equals("200")) {
			// 503 when the node's watcher cap is reached.
			return "HTTP " + status[1];
		}
		boolean chunked = false;
		String[] lower = new String[lines.length - 1];
		for (int k = 1; k < lines.length; k++) {
			lower[k - 1] = lines[k].toLowerCase(Locale.ROOT);
			if (lower[k - 1].startsWith("transfer-encoding:") && lower[k - 1].contains("chunked")) {
				chunked = true;
			}
		}
		String problem = headers(lower);
		if (problem != null) {
			return problem;
		}
		phase = chunked ? CHUNK_SIZE : IDENTITY;
		return null;
	}

	private String chunkSizeLine() {
		if (!chunkSizeSeen) {
			return "empty chunk size line";
		}
		phase = chunkRemaining == 0 ? TRAILER : CHUNK_DATA;
		return null;
	}

}
