package dev.ballast.probe;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One probe's deadline, enforced from outside the exchange: when it passes, a shared
 * timer closes the probe's connection, whatever the probe is blocked in (connecting, a
 * TLS handshake, a frame that trickles in a byte at a time). A timeout set on each read
 * bounds only the wait for the next byte, so a server that keeps sending a little could
 * hold a probe, and its slot, for as long as it likes; a connection closed from outside
 * cannot be held. The same cut ends the probe of a check that was deleted or replaced
 * ({@link #cancel}).
 * <p>
 * The name lookup before the connection has no socket to close: it is waited for with
 * what is left ({@link Dialer}).
 */
final class Deadline implements AutoCloseable {

	private final Duration timeout;

	private final long at;

	private final ScheduledFuture<?> timer;

	/** The probe's connection, once it has one; guarded by this. */
	private Socket socket;

	/** Why the probe was cut, or null while it is not; guarded by this. */
	private volatile Cut cut;

	private Deadline(Duration timeout, ScheduledExecutorService timers) {
		this.timeout = timeout;
		this.at = System.nanoTime() + timeout.toNanos();
		this.timer = timers.schedule(() -> cut(Cut.PASSED), timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** A deadline {@code timeout} from now, kept by {@code timers}. */
	static Deadline start(Duration timeout, ScheduledExecutorService timers) {
		return new Deadline(timeout, timers);
	}

	/** The probe's timeout, as its outcome says it. */
	Duration timeout() {
		return timeout;
	}

	/**
	 * The probe's connection, to be closed when the deadline passes.
	 * @throws SocketException when it has passed already (the socket is closed)
	 */
	void hold(Socket connection) throws SocketException {
		synchronized (this) {
			if (cut == null) {
				socket = connection;
				return;
			}
		}
		abort(connection);
		throw new SocketException(cut == Cut.PASSED ? "the check's timeout passed" : "the check was cancelled");
	}

	/** Milliseconds left, at least 1; 0 once the deadline has passed. */
	long leftMillis() {
		long nanos = at - System.nanoTime();
		return nanos <= 0 || cut != null ? 0 : Math.max(1, nanos / 1_000_000);
	}

	/** Whether the deadline passed (not a cancellation). */
	boolean passed() {
		return cut == Cut.PASSED || (cut == null && System.nanoTime() - at >= 0);
	}

	/** Cuts the probe now: its check is gone. */
	void cancel() {
		cut(Cut.CANCELLED);
	}

	private void cut(Cut why) {
		Socket connection;
		synchronized (this) {
			if (cut != null) {
				return;
			}
			cut = why;
			connection = socket;
		}
		if (connection != null) {
			abort(connection);
		}
	}

	/**
	 * Closes with a reset, as a finished probe closes: nothing more is to be said on the
	 * connection, and it leaves no TIME_WAIT behind.
	 */
	static void abort(Socket connection) {
		try {
			connection.setSoLinger(true, 0);
		}
		catch (IOException ex) {
			// Not connected yet, or closed already: a plain close then.
		}
		try {
			connection.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	/** The timer is no longer needed once the probe ends. */
	@Override
	public void close() {
		timer.cancel(false);
	}

	private enum Cut {

		PASSED, CANCELLED

	}

}
