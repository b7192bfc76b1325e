import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * One watch stream: the HTTP/1.1 response head, the chunked framing and the SSE lines,
 * parsed byte by byte as they arrive. Touched only by its selector thread until the
 * threads are joined.
 */
final class Watch {

	static final int LINE_PREFIX = 48;

	enum Kind {

		NONE, SNAPSHOT, UPSERT, REMOVE, RECONNECT, OTHER

	}

	static final int HEAD = 0, CHUNK_SIZE = 1, CHUNK_EXT = 2, CHUNK_DATA = 3, CHUNK_CR = 4, CHUNK_LF = 5,
			TRAILER = 6, IDENTITY = 7, DONE = 8;

	final int number;

	final SocketChannel channel;

	ByteBuffer request;

	int phase = HEAD;

	byte[] head = new byte[512];

	int headLength;

	long chunkRemaining;

	boolean chunkSizeSeen;

	int trailerLineLength;

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

	boolean closed;

	Watch(int number, SocketChannel channel, ByteBuffer request) {
		this.number = number;
		this.channel = channel;
		this.request = request;
	}

	boolean ready() {
		return snapshotRevision >= 0;
	}

}
