package dev.ballast.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ballast.database.ConnectionFailure;
import dev.ballast.database.DatabaseRestored;
import dev.ballast.database.Reachability;
import dev.ballast.registry.InstanceList;
import dev.ballast.web.NotFoundException;
import dev.ballast.web.OverloadedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Follows the committed changes of the services someone watches on this node: on its own
 * reader thread, and only there, it loads a service's state, reads the change log after a
 * notification or a catch-up, and reads what a resuming stream missed; then it hands what
 * it read, in revision order and without a gap, to {@link Streams}, whose thread delivers
 * it to everyone and never waits for the database.
 *
 * <p>
 * Every request for a service (a stream opening, a blocking query) passes this thread
 * before it reaches the delivering one; as both threads take their work in order, the
 * delivering thread always holds the service by the time the request arrives there.
 */
@Component
class ChangeFollower implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(ChangeFollower.class);

	private final Streams streams;

	private final WatchSettings settings;

	private final Reachability reachability;

	private final Interest interest = new Interest(System::nanoTime);

	private final SerialThread thread = new SerialThread("ballast-watch-read");

	/** Touched only on the reader thread. */
	private final FollowedServices followed;

	/** Touched only on the reader thread. */
	private final CatalogWaits catalog;

	/**
	 * Completes the states handed to reads ({@link #follow}) off the delivering thread,
	 * which must not run what the reads do next.
	 */
	private final Executor answering = task -> Thread.ofVirtual().name("ballast-watch-applied").start(task);

	/**
	 * Blocking queries that arrived during an outage for a service this node did not
	 * follow: they wait for their timeout, or for the database to come back. Touched only
	 * on the reader thread.
	 */
	private final List<Waiter> waitingForDatabase = new ArrayList<>();

	/**
	 * Followers whose service could not be loaded (the database was unreachable, or
	 * slow): tried again at every catch-up and when the database is back. Touched only on
	 * the reader thread.
	 */
	private final List<StateFollower> followersToRetry = new ArrayList<>();

	/** The services notified and not yet read, with the highest revision notified. */
	private final Map<String, Long> poked = new ConcurrentHashMap<>();

	private final AtomicBoolean pokeScheduled = new AtomicBoolean();

	private volatile boolean running;

	ChangeFollower(ChangeReader reader, Streams streams, WatchSettings settings, Reachability reachability,
			CatalogReads catalogReads) {
		this.followed = new FollowedServices(reader, streams, settings);
		this.catalog = new CatalogWaits(catalogReads);
		this.streams = streams;
		this.settings = settings;
		this.reachability = reachability;
	}

	/**
	 * Follows the stream's services, reads what it missed if the delivering thread no
	 * longer holds it, and hands the stream over. A service not registered is followed as
	 * an empty one, whose registration the stream then receives. The future fails with
	 * the reason (the database) when it cannot.
	 */
	CompletableFuture<Void> open(Watcher watcher) {
		watcher.services().forEach(interest::acquire);
		CompletableFuture<Void> opened = new CompletableFuture<>();
		thread.execute(() -> {
			try {
				Map<String, List<Change>> logged = new HashMap<>();
				for (String service : watcher.services()) {
					followed.follow(service, true);
					Position from = watcher.resumeFrom(service);
					if (from != null) {
						followed.missed(service, from).ifPresent(changes -> logged.put(service, changes));
					}
				}
				streams.open(watcher, logged, opened);
			}
			catch (RuntimeException ex) {
				opened.completeExceptionally(ex);
			}
		}, () -> opened.completeExceptionally(new IllegalStateException("the watch feed is stopped")));
		return opened;
	}

	/** Forgets a stream that ended. */
	void closed(Watcher watcher) {
		watcher.services().forEach(this::release);
		streams.closed(watcher);
	}

	/** Follows the waiter's service and lets the delivering thread answer it. */
	void await(Waiter waiter) {
		interest.acquire(waiter.service());
		thread.execute(() -> startWaiting(waiter));
	}

	/** Forgets a blocking query that was answered or timed out. */
	void forget(Waiter waiter) {
		thread.execute(() -> {
			waitingForDatabase.remove(waiter);
			streams.forget(waiter);
		});
		release(waiter.service());
	}

	/**
	 * A stream or query of {@code service} is done. A service followed only because
	 * someone waited for it to appear, and still not registered, is forgotten at once
	 * when nobody else waits for it: what unknown names hold stays within the caps on
	 * streams and waiting queries.
	 */
	private void release(String service) {
		interest.release(service);
		thread.execute(
				() -> followed.forgetUnregistered(service, () -> interest.idleSince(service, System.nanoTime() + 1)));
	}

	/**
	 * Follows the follower's service, a service not registered as an empty one, and hands
	 * the follower every state of it from now on. A service that cannot be loaded now is
	 * tried again at each catch-up.
	 */
	void follow(StateFollower follower) {
		interest.acquire(follower.service());
		thread.execute(() -> startFollowing(follower));
	}

	/** Forgets a follower that is done. */
	void unfollow(StateFollower follower) {
		thread.execute(() -> {
			followersToRetry.remove(follower);
			streams.unfollow(follower);
		});
		release(follower.service());
	}

	private void startFollowing(StateFollower follower) {
		try {
			followed.follow(follower.service(), true);
			streams.follow(follower);
		}
		catch (RuntimeException ex) {
			log.debug("Could not load {} for a follower yet: {}", follower.service(), ex.toString());
			followersToRetry.add(follower);
		}
	}

	private void retryFollowers() {
		List<StateFollower> retrying = List.copyOf(followersToRetry);
		followersToRetry.clear();
		retrying.forEach(this::startFollowing);
	}

	/** Lets the reader answer a catalog-wide wait at the first change that passes it. */
	void await(CatalogWait wait) {
		thread.execute(() -> catalog.add(wait));
	}

	/** Forgets a catalog-wide wait that was answered or timed out. */
	void forget(CatalogWait wait) {
		thread.execute(() -> catalog.remove(wait));
	}

	/**
	 * A read that waits for nothing (a DNS query) asked for {@code service}: it stays
	 * followed for the idle timeout from now, as after a blocking query.
	 */
	void asked(String service) {
		interest.acquire(service);
		interest.release(service);
	}

	/**
	 * Follows {@code service} and completes with its state as the delivering thread holds
	 * it, or empty when it is not registered; failed when it cannot be loaded. Completed
	 * by {@link #answering}.
	 */
	CompletableFuture<Optional<InstanceList>> follow(String service) {
		CompletableFuture<Optional<InstanceList>> state = new CompletableFuture<>();
		interest.acquire(service);
		thread.execute(() -> {
			try {
				followed.follow(service, false);
				streams.current(service, held -> state.completeAsync(() -> Optional.of(held), answering));
			}
			catch (NotFoundException ex) {
				state.completeAsync(Optional::empty, answering);
			}
			catch (RuntimeException ex) {
				answering.execute(() -> state.completeExceptionally(ex));
			}
			finally {
				interest.release(service);
			}
		}, () -> {
			interest.release(service);
			state.completeExceptionally(new IllegalStateException("the watch feed is stopped"));
		});
		return state;
	}

	/**
	 * Some node committed changes to these services, up to these revisions
	 * ({@link Notice#UNKNOWN} when a notification did not say): read them.
	 */
	void poke(Map<String, Long> revisions) {
		revisions.forEach((service, revision) -> poked.merge(service, revision, Math::max));
		if (pokeScheduled.compareAndSet(false, true)) {
			thread.execute(() -> {
				// Cleared before taking the batch: a poke after this point schedules
				// another read, so none is left behind.
				pokeScheduled.set(false);
				Map<String, Long> batch = new HashMap<>(poked);
				// Removed only if not raised meanwhile: a raised one is read next time.
				batch.forEach(poked::remove);
				followed.notified(batch);
				catalog.recheck();
			}, () -> pokeScheduled.set(false));
		}
	}

	/**
	 * Compares this node's revisions with the database and reads whatever it missed (a
	 * lost notification, a reconnected listener); forgets services nobody wants.
	 */
	void catchUp() {
		if (!reachability.reachable()) {
			// Nothing can be read; the database's return triggers a catch-up of its own.
			return;
		}
		thread.execute(() -> {
			long cutoff = System.nanoTime() - settings.idleServiceTimeout().toNanos();
			followed.forget(service -> interest.idleSince(service, cutoff));
			followed.catchUp();
			retryFollowers();
			catalog.recheck();
		});
	}

	/**
	 * Streams are told first that they are live again, then get what they missed;
	 * blocking queries that could not wait on this node's state wait on it now.
	 */
	@EventListener
	void on(DatabaseRestored restored) {
		streams.restored();
		thread.execute(() -> {
			List<Waiter> waiting = List.copyOf(waitingForDatabase);
			waitingForDatabase.clear();
			waiting.forEach(this::startWaiting);
		});
		catchUp();
	}

	private void startWaiting(Waiter waiter) {
		try {
			followed.follow(waiter.service(), true);
			streams.await(waiter);
		}
		catch (RuntimeException ex) {
			if (!reachability.reachable() && ConnectionFailure.isCauseOf(ex)) {
				waitingForDatabase.add(waiter);
			}
			else {
				waiter.result().setErrorResult(ex);
			}
		}
	}

	@Override
	public void start() {
		if (thread.restart()) {
			// What this node followed may be stale after a pause; it is loaded afresh.
			followed.clear();
			waitingForDatabase.clear();
			followersToRetry.clear();
			catalog.clear();
		}
		running = true;
	}

	/** Blocking queries still waiting for the database are told to retry elsewhere. */
	@Override
	public void stop() {
		running = false;
		thread.execute(() -> {
			waitingForDatabase.forEach(waiter -> waiter.result()
				.setErrorResult(new OverloadedException("the node is stopping; retry on another node")));
			waitingForDatabase.clear();
			catalog.stop();
		});
		thread.stop();
	}

	@Override
	public boolean isRunning() {
		return running;
	}

}
