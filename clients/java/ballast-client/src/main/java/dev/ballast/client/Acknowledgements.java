package dev.ballast.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * Acknowledges the revisions applied, per service: at most one acknowledgement in flight,
 * none sooner than the interval after the previous one started, and always, eventually,
 * the latest revision applied. A burst of changes therefore costs one or two requests,
 * not one per change. A failed acknowledgement is retried after a delay that grows to
 * {@link #MAX_DELAY_AFTER_FAILURE}, so a registry that refuses them is not hammered.
 */
final class Acknowledgements {

	/** Sends one acknowledgement; the future fails if the registry did not accept it. */
	interface Sender {

		CompletableFuture<?> send(String service, long revision);

	}

	private static final Duration MAX_DELAY_AFTER_FAILURE = Duration.ofSeconds(10);

	private static final Logger LOG = System.getLogger(Acknowledgements.class.getName());

	private final Sender sender;

	private final ScheduledExecutorService scheduler;

	private final Duration interval;

	private final Map<String, ServiceAcknowledgements> services = new ConcurrentHashMap<>();

	Acknowledgements(Sender sender, ScheduledExecutorService scheduler, Duration interval) {
		this.sender = sender;
		this.scheduler = scheduler;
		this.interval = interval;
	}

	void applied(String service, long revision) {
		services.computeIfAbsent(service, ServiceAcknowledgements::new).applied(revision);
	}

	/** The acknowledgements of one service; its lock guards all its fields. */
	private final class ServiceAcknowledgements {

		private final String service;

		private final Backoff failures = new Backoff(interval, MAX_DELAY_AFTER_FAILURE, RandomGenerator.getDefault());

		private long latest;

		private long acknowledged = -1;

		/** Scheduled or in flight: either way the next send must wait for this one. */
		private boolean busy;

		private long notBeforeNanos = System.nanoTime();

		ServiceAcknowledgements(String service) {
			this.service = service;
		}

		synchronized void applied(long revision) {
			latest = revision;
			sendWhenAllowed();
		}

		private void sendWhenAllowed() {
			if (busy || latest == acknowledged) {
				return;
			}
			busy = true;
			try {
				scheduler.schedule(this::send, Math.max(0, notBeforeNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// The watch is closing; there is nobody left to acknowledge for.
				busy = false;
			}
		}

		private void send() {
			long revision;
			synchronized (this) {
				revision = latest;
				notBeforeNanos = System.nanoTime() + interval.toNanos();
			}
			CompletableFuture<?> sent;
			try {
				sent = sender.send(service, revision);
			}
			catch (RuntimeException ex) {
				sent = CompletableFuture.failedFuture(ex);
			}
			sent.whenComplete((ignored, failure) -> completed(revision, failure));
		}

		private synchronized void completed(long revision, Throwable failure) {
			busy = false;
			if (failure == null) {
				acknowledged = revision;
				failures.reset();
			}
			else {
				Duration delay = failures.afterFailure();
				notBeforeNanos = Math.max(notBeforeNanos, System.nanoTime() + delay.toNanos());
				LOG.log(Level.WARNING, () -> "acknowledging revision " + revision + " of " + service
						+ " failed, retrying in " + delay.toMillis() + " ms: " + cause(failure).getMessage());
			}
			sendWhenAllowed();
		}

		private static Throwable cause(Throwable failure) {
			return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
					: failure;
		}

	}

}
