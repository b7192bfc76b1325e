package dev.ballast.watch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.ballast.database.DatabaseLost;
import dev.ballast.database.Reachability;
import dev.ballast.registry.ChangeLog;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.LoggedChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The open streams and waiting blocking queries of this node, and the one delivering
 * thread that serves them (its tasks run one at a time and in order, a few of them on the
 * committing thread, see {@link #committed}): it applies the changes
 * {@link ChangeFollower} read, and this node's own commits as soon as they commit
 * ({@link #committed}), in revision order, to each service's state and queues them to
 * every watcher of the service; it sends a new stream its snapshot or exactly what it
 * missed; it answers waiting queries. It never reads the database, so a slow database
 * never holds up the delivery of what has been read, and it never writes to a socket:
 * {@link StreamWriters} do, on every core.
 */
@Component
class Streams implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(Streams.class);

	private final AppliedServices applied;

	private final EventSender sender;

	private final WatchSettings settings;

	private final Reachability reachability;

	private final SerialThread thread = new SerialThread("ballast-watch-feed");

	/** Write what this thread queued, so that it never waits for a socket. */
	private final StreamWriters writers = StreamWriters.perCore();

	/** The services followed, with their watchers and waiters; delivering thread only. */
	private final Map<String, ServiceFeed> feeds = new HashMap<>();

	/** Streams that were sent their first events and receive every change since. */
	private final Set<Watcher> live = ConcurrentHashMap.newKeySet();

	private volatile boolean running;

	Streams(AppliedServices applied, EventSender sender, WatchSettings settings, Reachability reachability,
			ChangeLog changeLog) {
		this.applied = applied;
		this.sender = sender;
		this.settings = settings;
		this.reachability = reachability;
		changeLog.onCommitted(this::committed);
	}

	/** The streams live now; any thread may go through them. */
	Set<Watcher> live() {
		return Collections.unmodifiableSet(live);
	}

	/**
	 * Sends a stream whose services are all followed its first events, a snapshot of each
	 * service or, when it resumes, exactly the changes it missed (from memory, or from
	 * {@code logged}, read for it), then makes it live.
	 */
	void open(Watcher watcher, Map<String, List<Change>> logged, CompletableFuture<Void> opened) {
		thread.execute(() -> {
			if (!watcher.open()) {
				// Closed while its services were read (the request gave up).
				opened.complete(null);
				return;
			}
			// Every event id of a multiplexed stream carries all positions the client
			// resumed from, including those of services whose missed changes come later.
			for (String service : watcher.services()) {
				Position from = watcher.resumeFrom(service);
				if (from != null) {
					watcher.advance(service, from);
				}
			}
			for (String service : watcher.services()) {
				ServiceFeed feed = feeds.get(service);
				sender.initial(watcher, feed, logged.get(service), feeds::get);
				feed.watch(watcher);
			}
			if (!reachability.reachable()) {
				sender.frame(watcher, EventFrame.stale(true), feeds::get);
			}
			live.add(watcher);
			opened.complete(null);
		}, () -> opened.completeExceptionally(new IllegalStateException("the watch feed is stopped")));
	}

	/**
	 * Forgets a stream that ended. Safe from any thread: a stream that ends before
	 * {@link #open} runs is not opened, and one that ends after is removed after it.
	 */
	void closed(Watcher watcher) {
		live.remove(watcher);
		thread.execute(() -> {
			// Again here: it may have ended between open's check and its going live.
			live.remove(watcher);
			watcher.services().forEach(service -> {
				ServiceFeed feed = feeds.get(service);
				if (feed != null) {
					feed.unwatch(watcher);
				}
			});
		});
	}

	/** Answers a blocking query of a followed service now, or when a change allows. */
	void await(Waiter waiter) {
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(waiter.service());
			if (!waiter.offer(feed.current())) {
				feed.waiters().add(waiter);
			}
		});
	}

	/**
	 * Hands the service's state, as this thread holds it, to {@code state}; the reader
	 * follows the service before it asks.
	 */
	void current(String service, Consumer<InstanceList> state) {
		thread.execute(() -> state.accept(feeds.get(service).current()));
	}

	void forget(Waiter waiter) {
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(waiter.service());
			if (feed != null) {
				feed.waiters().remove(waiter);
			}
		});
	}

	/**
	 * Hands {@code follower} the state of its service as this thread holds it, then every
	 * state applied after it; the reader follows the service before it asks.
	 */
	void follow(StateFollower follower) {
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(follower.service());
			feed.followers().add(follower);
			follower.accept(feed.current());
		});
	}

	void unfollow(StateFollower follower) {
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(follower.service());
			if (feed != null) {
				feed.followers().remove(follower);
			}
		});
	}

	/**
	 * A service's state as loaded: the start of following it, or a fresh start when the
	 * log no longer held a revision, after which its watchers get a snapshot.
	 * @param delivered where the position applied is reported to the reader
	 * @param lost whether the database no longer holds the position the feed stands at (a
	 * failover lost it): the state replaces the feed's whatever its revision
	 */
	void reset(LoadedService loaded, AtomicReference<Position> delivered, boolean lost) {
		InstanceList state = loaded.state();
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(state.service());
			if (feed == null) {
				feeds.put(state.service(), new ServiceFeed(loaded, settings.recentChanges(), delivered));
				applied.publish(state);
				return;
			}
			if (!lost && feed.revision() >= state.revision()) {
				// This node's own commits took the feed there, each in order: it is
				// exact at a revision no older than the state read, and its watchers
				// have missed nothing.
				return;
			}
			feed.reset(loaded, delivered);
			applied.publish(feed.current());
			StreamWriters.Batch batch = writers.batch();
			for (Watcher watcher : feed.watchers()) {
				watcher.discardQueued();
				watcher.services().forEach(service -> sender.snapshot(watcher, feeds.get(service), feeds::get));
				batch.add(watcher);
			}
			batch.submit();
			feed.waiters().removeIf(waiter -> waiter.offer(feed.current()));
			feed.followers().forEach(follower -> follower.accept(feed.current()));
		});
	}

	/**
	 * The next changes of a service, read in order and without a gap; those this node's
	 * own commits brought already are skipped.
	 */
	void apply(String service, List<Change> changes) {
		thread.execute(() -> {
			ServiceFeed feed = feeds.get(service);
			List<Change> next = changes.stream().filter(change -> change.revision() > feed.revision()).toList();
			for (Change change : next) {
				if (!feed.apply(change)) {
					throw new IllegalStateException("change %d of %s does not follow revision %d"
						.formatted(change.revision(), service, feed.revision()));
				}
			}
			deliver(feed, next);
		});
	}

	/**
	 * Changes this node has just committed, in revision order per service, as the change
	 * log hands them over (registered at start), applied without waiting for their
	 * notification and a read of the log. Only the next revision of a followed service
	 * applies: a change read already, or one whose predecessor has not arrived (another
	 * writer's commit whose hand-over is still on its way, or another node's), is left to
	 * the log, which brings every change in order, and a change of a service not followed
	 * has nobody to go to. So is a change committed in another history than the feed's
	 * position: after a failover the new primary may not hold that position (an
	 * asynchronous standby lost it), and only the log's reader checks that it does before
	 * the change is applied on top of it. A transaction that rolls back never gets here.
	 * <p>
	 * When the delivering thread is idle and the changes' services have only a
	 * {@link StreamWriters#FEW few} streams and waiting queries, the committing thread
	 * applies and sends them itself, as that costs it less than the two thread wake-ups
	 * it saves cost the event (see {@link SerialThread}); with more, it does not hold up
	 * the writer's answer.
	 */
	private void committed(long history, List<LoggedChange> logged) {
		if (history == ChangeLog.UNSTAMPED) {
			// Never expected: the rows' statement answers it. The log still brings the
			// changes, with their history, to every node.
			log.error("{} changes committed without the history their rows were stamped with; left to the change log",
					logged.size());
			return;
		}
		List<Change> changes = logged.stream().map(change -> Change.of(change, history)).toList();
		thread.executeHereIfIdle(() -> {
			Map<ServiceFeed, List<Change>> next = new LinkedHashMap<>();
			for (Change change : changes) {
				ServiceFeed feed = feeds.get(change.service());
				if (feed != null && change.position().history() == feed.position().history() && feed.apply(change)) {
					next.computeIfAbsent(feed, f -> new ArrayList<>()).add(change);
				}
			}
			next.forEach(this::deliver);
		}, () -> changes.stream().allMatch(this::fewToTell));
	}

	/** Whether few streams and waiting queries follow the change's service. */
	private boolean fewToTell(Change change) {
		ServiceFeed feed = feeds.get(change.service());
		return feed == null
				|| feed.watchers().size() + feed.waiters().size() + feed.followers().size() <= StreamWriters.FEW;
	}

	/** Publishes what a feed applied and queues it to its watchers and waiters. */
	private void deliver(ServiceFeed feed, List<Change> changes) {
		if (changes.isEmpty()) {
			return;
		}
		feed.publish();
		applied.publish(feed.current());
		List<EventFrame> frames = changes.stream()
			.map(change -> EventFrame.of(change.position().id(), change.eventName(), change.data()))
			.toList();
		StreamWriters.Batch batch = writers.batch();
		for (Watcher watcher : feed.watchers()) {
			for (int i = 0; i < changes.size(); i++) {
				sender.change(watcher, changes.get(i), frames.get(i), feeds::get);
			}
			batch.add(watcher);
		}
		batch.submit();
		feed.waiters().removeIf(waiter -> waiter.offer(feed.current()));
		feed.followers().forEach(follower -> follower.accept(feed.current()));
	}

	/** The node no longer follows the service: nobody has wanted it for a while. */
	void forget(String service) {
		thread.execute(() -> {
			feeds.remove(service);
			applied.forget(service);
		});
	}

	/**
	 * Tells every open stream that what it has is the node's last known state; the
	 * streams stay open and keep their keepalives.
	 */
	@EventListener
	void on(DatabaseLost lost) {
		stale(true);
	}

	/** Tells every open stream that it is live again, before what it missed is read. */
	void restored() {
		stale(false);
	}

	private void stale(boolean stale) {
		thread.execute(() -> {
			EventFrame frame = EventFrame.stale(stale);
			StreamWriters.Batch batch = writers.batch();
			for (Watcher watcher : live) {
				sender.frame(watcher, frame, feeds::get);
				batch.add(watcher);
			}
			batch.submit();
		});
	}

	@Override
	public void start() {
		writers.restart();
		if (thread.restart()) {
			// What this node knew may be stale after a pause; the reader loads it afresh.
			feeds.clear();
			applied.clear();
		}
		running = true;
	}

	/**
	 * Before the web server drains its requests: every stream is told to reconnect
	 * (elsewhere) and every waiting blocking query is answered with what this node has.
	 */
	@Override
	public void stop() {
		running = false;
		live.forEach(watcher -> watcher.finish(EventFrame.reconnect("shutdown", StreamUpkeep.retryMillis())));
		thread.execute(() -> feeds.values().forEach(feed -> {
			feed.waiters().forEach(waiter -> waiter.answer(feed.current()));
			feed.waiters().clear();
		}));
		thread.stop();
		writers.stop();
	}

	@Override
	public boolean isRunning() {
		return running;
	}

}
