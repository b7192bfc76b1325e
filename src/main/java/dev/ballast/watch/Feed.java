package dev.ballast.watch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ballast.database.ConnectionFailure;
import dev.ballast.database.DatabaseLost;
import dev.ballast.database.DatabaseRestored;
import dev.ballast.database.Reachability;
import dev.ballast.instance.InstanceList;
import dev.ballast.security.TokensInForce;
import dev.ballast.web.OverloadedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.ObjectMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * This node's view of the services someone watches here, and the one thread that changes
 * it. Each change is read from the database once per node, applied here in revision
 * order, and then queued to every watcher of its service; blocking queries waiting for it
 * are answered from the same state.
 */
@Component
class Feed implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(Feed.class);

	private final ChangeReader reader;

	private final Subscribers subscribers;

	private final WatchSettings settings;

	private final ObjectMapper json;

	/** Replaced on every start: a stopped context (a test's paused one) starts again. */
	private volatile ExecutorService thread = newThread();

	/** Touched only on the feed thread. */
	private final Map<String, ServiceFeed> feeds = new HashMap<>();

	private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();

	private final Set<String> poked = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean pokeScheduled = new AtomicBoolean();

	private volatile boolean running;

	private final Counter resynchronized;

	private final Reachability reachability;

	/**
	 * Blocking queries that arrived during an outage for a service this node did not
	 * follow; they wait for their timeout, or for the database to come back. Touched only
	 * on the feed thread.
	 */
	private final List<Waiter> orphans = new ArrayList<>();

	Feed(ChangeReader reader, Subscribers subscribers, WatchSettings settings, ObjectMapper json, MeterRegistry meters,
			Reachability reachability) {
		this.reachability = reachability;
		this.resynchronized = Counter.builder("ballast.watch.resynchronized")
			.description("Streams that fell a whole queue behind and were sent a snapshot instead")
			.register(meters);
		this.reader = reader;
		this.subscribers = subscribers;
		this.settings = settings;
		this.json = json;
	}

	/**
	 * Registers a stream and queues its first events: a snapshot of each service, or when
	 * the client resumes, exactly the changes it missed. Fails with the reason (an
	 * unknown service, the database) when it cannot.
	 */
	CompletableFuture<Void> open(Watcher watcher) {
		return onFeedThread(() -> {
			for (String service : watcher.services()) {
				tracked(service);
			}
			if (!watcher.open()) {
				// Closed while waiting for this thread (the request gave up).
				return null;
			}
			// Every event id of a multiplexed stream carries all positions the client
			// resumed from, including those of services whose missed changes come later.
			for (String service : watcher.services()) {
				Long from = watcher.resumeFrom(service);
				if (from != null) {
					watcher.advance(service, from);
				}
			}
			for (String service : watcher.services()) {
				ServiceFeed feed = feeds.get(service);
				sendInitial(watcher, feed);
				feed.watchers().add(watcher);
			}
			if (!reachability.reachable()) {
				offer(watcher, EventFrame.stale(true));
			}
			watchers.add(watcher);
			return null;
		});
	}

	/** Forgets a stream that ended. */
	void closed(Watcher watcher) {
		if (watchers.remove(watcher)) {
			execute(() -> watcher.services().forEach(service -> {
				ServiceFeed feed = feeds.get(service);
				if (feed != null) {
					feed.watchers().remove(watcher);
				}
			}));
		}
	}

	/** Answers a blocking query now if the state allows it, or when a change does. */
	void await(Waiter waiter) {
		execute(() -> {
			try {
				ServiceFeed feed = tracked(waiter.service());
				if (!waiter.offer(feed.current())) {
					feed.waiters().add(waiter);
				}
			}
			catch (RuntimeException ex) {
				if (!reachability.reachable() && ConnectionFailure.isCauseOf(ex)) {
					orphans.add(waiter);
				}
				else {
					waiter.result().setErrorResult(ex);
				}
			}
		});
	}

	void forget(Waiter waiter) {
		execute(() -> {
			orphans.remove(waiter);
			ServiceFeed feed = feeds.get(waiter.service());
			if (feed != null) {
				feed.waiters().remove(waiter);
			}
		});
	}

	/**
	 * Tells every open stream that what it has is the node's last known state; the
	 * streams stay open and keep their keepalives.
	 */
	@EventListener
	void on(DatabaseLost lost) {
		execute(() -> {
			for (Watcher watcher : watchers) {
				offer(watcher, EventFrame.stale(true));
				watcher.drain();
			}
		});
	}

	/**
	 * Tells every open stream that it is live again, then sends what it missed; blocking
	 * queries that could not wait on this node's state wait on it now.
	 */
	@EventListener
	void on(DatabaseRestored restored) {
		execute(() -> {
			for (Watcher watcher : watchers) {
				offer(watcher, EventFrame.stale(false));
				watcher.drain();
			}
			List<Waiter> waiting = List.copyOf(orphans);
			orphans.clear();
			waiting.forEach(this::await);
		});
		catchUp();
	}

	/** Some node committed changes to these services: read them. */
	void poke(Collection<String> services) {
		poked.addAll(services);
		if (pokeScheduled.compareAndSet(false, true)) {
			execute(() -> {
				// Cleared before taking the batch: a poke after this point schedules
				// another read, so none is left behind.
				pokeScheduled.set(false);
				List<String> batch = new ArrayList<>(poked);
				poked.removeAll(batch);
				fetch(batch);
			});
		}
	}

	/**
	 * Compares this node's revisions with the database and reads whatever it missed (a
	 * lost notification, a reconnected listener); forgets services nobody watches.
	 */
	void catchUp() {
		if (!reachability.reachable()) {
			// Nothing can be read; the database's return triggers a catch-up of its own.
			return;
		}
		execute(() -> {
			long now = System.nanoTime();
			long cutoff = now - settings.idleServiceTimeout().toNanos();
			feeds.values().removeIf(feed -> feed.unwatchedSince(cutoff, now));
			if (feeds.isEmpty()) {
				return;
			}
			Map<String, Long> stored = reader.revisions(new ArrayList<>(feeds.keySet()));
			fetch(stored.entrySet()
				.stream()
				.filter(entry -> entry.getValue() > feeds.get(entry.getKey()).revision())
				.map(Map.Entry::getKey)
				.toList());
		});
	}

	/** A stream whose token was deleted ends at once; reconnecting, it gets 401. */
	@EventListener
	void on(TokensInForce tokens) {
		for (Watcher watcher : watchers) {
			if (!tokens.ids().contains(watcher.token())) {
				watcher.finish(EventFrame.reconnect("token-revoked", retryMillis()));
			}
		}
	}

	/** Keepalives, age limits and stalls of every open stream; called every second. */
	void tick() {
		long now = System.nanoTime();
		long keepalive = settings.keepalive().toNanos();
		long stall = settings.stallTimeout().toNanos();
		for (Watcher watcher : watchers) {
			if (watcher.expired(now)) {
				watcher.finish(EventFrame.reconnect("max-age", retryMillis()));
			}
			else if (watcher.hasQueued() && watcher.idleNanos(now) > stall) {
				log.debug("Closing a stream that took nothing for {}", settings.stallTimeout());
				watcher.close();
			}
			else if (!watcher.hasQueued() && watcher.idleNanos(now) >= keepalive) {
				watcher.offer(EventFrame.KEEPALIVE);
				watcher.drain();
			}
		}
	}

	private ServiceFeed tracked(String service) {
		ServiceFeed feed = feeds.get(service);
		if (feed == null) {
			feed = new ServiceFeed(reader.load(service), settings.recentChanges(), System.nanoTime());
			feeds.put(service, feed);
		}
		return feed;
	}

	private void sendInitial(Watcher watcher, ServiceFeed feed) {
		Long from = watcher.resumeFrom(feed.service());
		List<Change> missed = from == null ? null : missedSince(feed, from);
		if (missed == null) {
			sendSnapshot(watcher, feed);
		}
		else {
			for (Change change : missed) {
				send(watcher, change, null);
			}
		}
	}

	/** Exactly the changes after {@code from}, or null when they are no longer held. */
	private List<Change> missedSince(ServiceFeed feed, long from) {
		if (from > feed.revision()) {
			// The client may come from a node that has read further than this one.
			fetch(List.of(feed.service()));
		}
		Optional<List<Change>> held = feed.changesAfter(from);
		if (held.isPresent()) {
			return held.get();
		}
		if (from < 0 || from > feed.revision()) {
			return null;
		}
		List<Change> logged = reader.between(feed.service(), from, feed.revision());
		for (int i = 0; i < logged.size(); i++) {
			if (logged.get(i).revision() != from + 1 + i) {
				return null;
			}
		}
		return logged.size() == feed.revision() - from ? logged : null;
	}

	private void sendSnapshot(Watcher watcher, ServiceFeed feed) {
		watcher.advance(feed.service(), feed.revision());
		delivered(watcher, feed.service(), feed.revision());
		offer(watcher, EventFrame.of(watcher.eventId(feed.service()), "snapshot",
				feed.snapshotData(json::writeValueAsString)));
	}

	private void send(Watcher watcher, Change change, byte[] singleServiceFrame) {
		watcher.advance(change.service(), change.revision());
		delivered(watcher, change.service(), change.revision());
		byte[] frame = singleServiceFrame != null && !watcher.multiplexed() ? singleServiceFrame
				: EventFrame.of(watcher.eventId(change.service()), change.eventName(), change.data());
		offer(watcher, frame);
	}

	private void offer(Watcher watcher, byte[] frame) {
		if (!watcher.offer(frame)) {
			resynchronize(watcher);
		}
	}

	/**
	 * A stream fell a whole queue behind: its queued events are replaced by one snapshot
	 * per service, which brings it to the same state with less to send.
	 */
	private void resynchronize(Watcher watcher) {
		resynchronized.increment();
		watcher.discardQueued();
		for (String service : watcher.services()) {
			ServiceFeed feed = feeds.get(service);
			if (feed != null) {
				sendSnapshot(watcher, feed);
			}
		}
	}

	private void delivered(Watcher watcher, String service, long revision) {
		if (watcher.subscriber() != null) {
			subscribers.delivered(service, watcher.subscriber(), revision);
		}
	}

	private void fetch(List<String> services) {
		Map<String, Long> positions = new LinkedHashMap<>();
		for (String service : services) {
			ServiceFeed feed = feeds.get(service);
			if (feed != null) {
				positions.put(service, feed.revision());
			}
		}
		while (!positions.isEmpty()) {
			List<Change> changes = reader.after(positions);
			Map<String, List<Change>> byService = new LinkedHashMap<>();
			changes.forEach(change -> byService.computeIfAbsent(change.service(), s -> new ArrayList<>()).add(change));
			byService.forEach(this::apply);
			if (changes.size() < ChangeReader.BATCH) {
				return;
			}
			positions.replaceAll((service, revision) -> feeds.get(service).revision());
		}
	}

	private void apply(String service, List<Change> changes) {
		ServiceFeed feed = feeds.get(service);
		List<Change> applied = new ArrayList<>(changes.size());
		for (Change change : changes) {
			if (change.revision() <= feed.revision()) {
				continue;
			}
			if (!feed.apply(change)) {
				// A revision in between is gone from the log: start over from the state.
				log.info("Change log of {} no longer holds revision {}; reloading its state", service,
						feed.revision() + 1);
				reload(feed);
				return;
			}
			applied.add(change);
		}
		if (applied.isEmpty()) {
			return;
		}
		feed.publish();
		reader.followed(feed.current());
		List<byte[]> frames = applied.stream()
			.map(change -> EventFrame.of(Long.toString(change.revision()), change.eventName(), change.data()))
			.toList();
		for (Watcher watcher : feed.watchers()) {
			for (int i = 0; i < applied.size(); i++) {
				send(watcher, applied.get(i), frames.get(i));
			}
			watcher.drain();
		}
		feed.waiters().removeIf(waiter -> waiter.offer(feed.current()));
	}

	private void reload(ServiceFeed feed) {
		feed.reset(reader.load(feed.service()));
		reader.followed(feed.current());
		for (Watcher watcher : feed.watchers()) {
			watcher.discardQueued();
			watcher.services().forEach(service -> sendSnapshot(watcher, feeds.get(service)));
			watcher.drain();
		}
		feed.waiters().removeIf(waiter -> waiter.offer(feed.current()));
	}

	private long retryMillis() {
		// Clients told to reconnect come back spread over a second, not all at once.
		return 200 + ThreadLocalRandom.current().nextLong(1000);
	}

	private void execute(Runnable task) {
		try {
			thread.execute(() -> {
				try {
					task.run();
				}
				catch (DataAccessException ex) {
					log.warn("Watch feed could not read the database: {}", ex.getMessage());
				}
				catch (RuntimeException ex) {
					log.error("Watch feed task failed", ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			log.debug("Watch feed is stopped; dropped a task");
		}
	}

	private <T> CompletableFuture<T> onFeedThread(java.util.function.Supplier<T> task) {
		try {
			return CompletableFuture.supplyAsync(task, thread);
		}
		catch (RejectedExecutionException ex) {
			return CompletableFuture.failedFuture(new IllegalStateException("the watch feed is stopped", ex));
		}
	}

	@Override
	public void start() {
		if (thread.isShutdown()) {
			// What this node knew may be stale after a pause; watchers load it afresh.
			feeds.clear();
			thread = newThread();
		}
		running = true;
	}

	private static ExecutorService newThread() {
		return Executors.newSingleThreadExecutor(Thread.ofPlatform().name("ballast-watch-feed").daemon().factory());
	}

	/**
	 * Before the web server drains its requests: every stream is told to reconnect
	 * (elsewhere) and every waiting blocking query is answered with what this node has.
	 */
	@Override
	public void stop() {
		running = false;
		watchers.forEach(watcher -> watcher.finish(EventFrame.reconnect("shutdown", retryMillis())));
		execute(() -> {
			feeds.values().forEach(feed -> {
				feed.waiters().forEach(waiter -> waiter.answer().accept(feed.current()));
				feed.waiters().clear();
			});
			orphans.forEach(waiter -> waiter.result()
				.setErrorResult(new OverloadedException("the node is stopping; retry on another node")));
			orphans.clear();
		});
		thread.shutdown();
		try {
			if (!thread.awaitTermination(2, TimeUnit.SECONDS)) {
				thread.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

}
