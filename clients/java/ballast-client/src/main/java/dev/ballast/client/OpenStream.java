package dev.ballast.client;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * One open watch stream, read until it ends, breaks, goes idle or the registry asks for a
 * reconnect with {@code event: reconnect}. Keepalive comments count as traffic: a stream
 * is idle only when no byte at all arrived for the idle timeout, which means the
 * connection died without being closed.
 */
final class OpenStream implements EventStreamParser.Listener {

	private static final String RECONNECT = "reconnect";

	private static final Logger LOG = System.getLogger(OpenStream.class.getName());

	private final InputStream body;

	private final EventStreamParser parser;

	private final ChangeEvents changes;

	private final Backoff backoff;

	private volatile long lastTrafficNanos = System.nanoTime();

	private volatile boolean idle;

	private boolean reconnectRequested;

	private boolean healthy;

	/**
	 * @param lastEventId the id to continue from, {@code ""} for none
	 * @param backoff takes the registry's {@code retry:} delay
	 */
	OpenStream(InputStream body, String lastEventId, ChangeEvents changes, Backoff backoff) {
		this.body = body;
		this.parser = new EventStreamParser(lastEventId, this);
		this.changes = changes;
		this.backoff = backoff;
	}

	/**
	 * Reads events and applies them until the stream ends or the registry asks for a
	 * reconnect.
	 * @throws IOException if the stream broke, went idle or was closed
	 */
	void read() throws IOException {
		try (body) {
			byte[] buffer = new byte[8192];
			int read;
			while (!reconnectRequested && (read = body.read(buffer)) != -1) {
				lastTrafficNanos = System.nanoTime();
				parser.accept(buffer, 0, read);
			}
		}
	}

	/**
	 * Closes the stream if nothing arrived for {@code timeout}; any thread may call it.
	 */
	void closeIfIdleFor(Duration timeout) {
		if (System.nanoTime() - lastTrafficNanos > timeout.toNanos()) {
			idle = true;
			close();
		}
	}

	/** Ends {@link #read()} from another thread. */
	void close() {
		try {
			body.close();
		}
		catch (IOException ex) {
			LOG.log(Level.DEBUG, "closing a watch stream failed", ex);
		}
	}

	/** The id to resume after: that of the last complete event. */
	String lastEventId() {
		return parser.lastEventId();
	}

	boolean idle() {
		return idle;
	}

	boolean reconnectRequested() {
		return reconnectRequested;
	}

	/**
	 * Whether at least one event arrived, showing that the registry serves this watch.
	 */
	boolean healthy() {
		return healthy;
	}

	@Override
	public void event(ServerSentEvent event) {
		healthy = true;
		if (RECONNECT.equals(event.type())) {
			LOG.log(Level.DEBUG, () -> "the registry asked for a reconnect: " + event.data());
			reconnectRequested = true;
		}
		else {
			changes.apply(event);
		}
	}

	@Override
	public void retry(Duration delay) {
		backoff.base(delay);
	}

}
