package dev.ballast.client;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a watch stream open until stopped: connects, reads, and after every end waits
 * before connecting again, resuming after the last event id it received. The wait is
 * short after the registry asked for a reconnect, follows the backoff after a failure,
 * and is at least the registry's {@code Retry-After} when it answered 503.
 */
final class WatchLoop implements Runnable {

	/**
	 * The longest {@code Retry-After} honoured, so that a wrong header cannot stall us.
	 */
	private static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

	private static final Logger LOG = System.getLogger(WatchLoop.class.getName());

	private final HttpClient client;

	private final RegistryRequests requests;

	private final ChangeEvents changes;

	private final Backoff backoff;

	private final ScheduledExecutorService scheduler;

	private final Duration idleTimeout;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private volatile OpenStream open;

	private String lastEventId = "";

	WatchLoop(HttpClient client, RegistryRequests requests, ChangeEvents changes, Backoff backoff,
			ScheduledExecutorService scheduler, Duration idleTimeout) {
		this.client = client;
		this.requests = requests;
		this.changes = changes;
		this.backoff = backoff;
		this.scheduler = scheduler;
		this.idleTimeout = idleTimeout;
	}

	@Override
	public void run() {
		try {
			while (stopped.getCount() > 0) {
				stopped.await(connectSafely().toNanos(), TimeUnit.NANOSECONDS);
			}
		}
		catch (InterruptedException ex) {
			// Only a close interrupts this thread, and it already ended the loop.
			Thread.currentThread().interrupt();
		}
	}

	private Duration connectSafely() throws InterruptedException {
		try {
			return connect();
		}
		catch (RuntimeException ex) {
			// A failure here must not end the thread: the services would silently stop
			// changing. After a close it is expected, as the timer is already shut down.
			if (stopped.getCount() == 0) {
				return Duration.ZERO;
			}
			Duration delay = backoff.afterFailure();
			LOG.log(Level.ERROR,
					"watching " + requests.services() + " failed unexpectedly, retrying in " + delay.toMillis() + " ms",
					ex);
			return delay;
		}
	}

	/** Whether a stream is open now, that is the registry answered and is sending. */
	boolean connected() {
		return open != null;
	}

	/** Ends the loop; the thread running it must also be interrupted to end a connect. */
	void stop() {
		stopped.countDown();
		OpenStream stream = open;
		if (stream != null) {
			stream.close();
		}
	}

	private Duration connect() throws InterruptedException {
		HttpResponse<InputStream> response;
		try {
			response = client.send(requests.watch(lastEventId), HttpResponse.BodyHandlers.ofInputStream());
		}
		catch (IOException ex) {
			Duration delay = backoff.afterFailure();
			LOG.log(Level.WARNING, () -> "watching " + requests.services() + " failed, retrying in " + delay.toMillis()
					+ " ms: " + ex);
			return delay;
		}
		if (response.statusCode() == 200) {
			return read(response.body());
		}
		return refused(response);
	}

	private Duration read(InputStream body) {
		OpenStream stream = new OpenStream(body, lastEventId, changes, backoff);
		open = stream;
		long period = Math.max(idleTimeout.toMillis() / 4, 1);
		ScheduledFuture<?> idleCheck = scheduler.scheduleWithFixedDelay(() -> stream.closeIfIdleFor(idleTimeout),
				period, period, TimeUnit.MILLISECONDS);
		try {
			stream.read();
		}
		catch (IOException ex) {
			if (stopped.getCount() == 0) {
				return Duration.ZERO;
			}
			LOG.log(Level.INFO, () -> "watch stream of " + requests.services() + " ended: "
					+ (stream.idle() ? "nothing arrived for " + idleTimeout.toMillis() + " ms" : ex.toString()));
		}
		finally {
			idleCheck.cancel(false);
			open = null;
			lastEventId = stream.lastEventId();
		}
		if (stream.healthy()) {
			backoff.reset();
		}
		return stream.reconnectRequested() ? backoff.afterRequest() : backoff.afterFailure();
	}

	private Duration refused(HttpResponse<InputStream> response) {
		try {
			response.body().close();
		}
		catch (IOException ex) {
			LOG.log(Level.DEBUG, "closing a refused watch response failed", ex);
		}
		Duration delay = backoff.afterFailure();
		if (response.statusCode() == 503) {
			Duration retryAfter = retryAfter(response);
			delay = (retryAfter.compareTo(delay) > 0) ? retryAfter : delay;
		}
		Duration wait = delay;
		LOG.log(Level.WARNING, () -> "the registry answered " + response.statusCode() + " to watching "
				+ requests.services() + ", retrying in " + wait.toMillis() + " ms");
		return wait;
	}

	/** The {@code Retry-After} delay in seconds, capped; zero when absent or a date. */
	private static Duration retryAfter(HttpResponse<?> response) {
		try {
			long seconds = Long.parseLong(response.headers().firstValue("Retry-After").orElse("0").trim());
			return (seconds > MAX_RETRY_AFTER.toSeconds()) ? MAX_RETRY_AFTER : Duration.ofSeconds(Math.max(seconds, 0));
		}
		catch (NumberFormatException ex) {
			return Duration.ZERO;
		}
	}

}
