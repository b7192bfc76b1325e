package dev.ballast.consul;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import dev.ballast.database.Notified;
import dev.ballast.web.OverloadedException;
import jakarta.annotation.PreDestroy;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Blocking queries on the whole catalog ({@code GET /v1/catalog/services}), whose index
 * rises with every change of every service. They follow the change notifications every
 * write sends (the watch module's channel): on a notification one thread reads the
 * catalog's index once and wakes every waiter it passed; a waiter nothing wakes is
 * answered when its wait is up. At most {@code ballast.consul.max-catalog-waiters} wait
 * at once on a node; past that, 503.
 */
@Component
class CatalogWaiters implements Notified {

	/**
	 * The channel the watch module's change log notifies on (payload: the service and
	 * revision).
	 */
	static final String CHANGES = "ballast_changes";

	private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();

	private final ExecutorService thread = Executors
		.newSingleThreadExecutor(Thread.ofPlatform().name("ballast-consul-catalog").daemon().factory());

	private final AtomicBoolean scheduled = new AtomicBoolean();

	private final int max;

	private volatile LongSupplier index = () -> 0;

	CatalogWaiters(@Value("${ballast.consul.max-catalog-waiters:2000}") int max) {
		this.max = max;
	}

	/** How the current index is read; set once by the catalog. */
	void indexFrom(LongSupplier catalogIndex) {
		this.index = catalogIndex;
	}

	/**
	 * Runs {@code wake} once the catalog's index passes {@code after}; {@code forget} is
	 * called by the caller when its wait ends either way.
	 * @return the handle to forget
	 */
	Object await(long after, Runnable wake) {
		if (waiting.size() >= max) {
			throw new OverloadedException(
					"this node serves its maximum of %d catalog blocking queries; retry later or on another node"
						.formatted(max));
		}
		Waiting entry = new Waiting(after, wake);
		waiting.add(entry);
		// A change between the caller's read and now would otherwise go unseen.
		recheck();
		return entry;
	}

	void forget(Object handle) {
		waiting.remove(handle);
	}

	@Override
	public String channel() {
		return CHANGES;
	}

	@Override
	public void notified(Set<String> payloads) {
		recheck();
	}

	@Override
	public void connected() {
		recheck();
	}

	private void recheck() {
		if (waiting.isEmpty() || !scheduled.compareAndSet(false, true)) {
			return;
		}
		thread.execute(() -> {
			scheduled.set(false);
			if (waiting.isEmpty()) {
				return;
			}
			long current;
			try {
				current = index.getAsLong();
			}
			catch (RuntimeException ex) {
				// The database is away: the waiters are answered when their time is up.
				return;
			}
			for (Waiting entry : waiting) {
				if (current > entry.after() && waiting.remove(entry)) {
					entry.wake().run();
				}
			}
		});
	}

	@PreDestroy
	void stop() {
		thread.shutdownNow();
	}

	private record Waiting(long after, Runnable wake) {

		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

	}

}
