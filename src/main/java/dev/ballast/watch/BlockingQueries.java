package dev.ballast.watch;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.OverloadedException;

import org.springframework.stereotype.Component;

/**
 * What every read that must stay fresh (the REST API's blocking reads, Consul's, DNS,
 * xDS, Prometheus') needs from the node's following of committed changes: the
 * blocking-query parameters, a polling subscriber's progress, the state the node applied,
 * waits for a state newer than the one read that count against the node's one cap of
 * watchers, and followers of it that stay open.
 */
@Component
public class BlockingQueries {

	private final ChangeFollower follower;

	private final WatcherCap cap;

	private final Subscribers subscribers;

	private final WatchSettings settings;

	private final AppliedServices applied;

	/**
	 * The loads under way of services the node did not follow when asked, so that many
	 * queries for one name at once (a DNS flood) load it once.
	 */
	private final Map<String, CompletableFuture<Optional<InstanceList>>> loading = new ConcurrentHashMap<>();

	BlockingQueries(ChangeFollower follower, WatcherCap cap, Subscribers subscribers, WatchSettings settings,
			AppliedServices applied) {
		this.follower = follower;
		this.applied = applied;
		this.cap = cap;
		this.subscribers = subscribers;
		this.settings = settings;
	}

	/**
	 * Parses a blocking query's {@code index}, {@code wait} and {@code subscriber}, each
	 * {@code null} when absent.
	 * @throws dev.ballast.web.BadParameterException naming the first that does not parse
	 */
	public BlockingQuery query(String index, String wait, String subscriber) {
		Long after = QueryParameters.index(index);
		Duration timeout = QueryParameters.wait(wait, settings.defaultWait(), settings.maxWait());
		return new BlockingQuery(after, jittered(timeout), QueryParameters.subscriber(subscriber));
	}

	/** A polling subscriber passed back {@code revision}: it has applied it. */
	public void acknowledged(ServiceName service, String subscriber, long revision) {
		subscribers.acked(service.value(), subscriber, revision);
	}

	/** {@code revision} was answered to a polling subscriber. */
	public void delivered(ServiceName service, String subscriber, long revision) {
		subscribers.delivered(service.value(), subscriber, revision);
	}

	/**
	 * Completes {@code wait} with the first state of its service this node applies that
	 * it accepts, or with the unchanged answer once its timeout is up. No thread waits.
	 * @throws OverloadedException when the node serves its maximum of watchers
	 */
	public void await(BlockingWait wait) {
		Runnable disconnect = wait.subscriber() == null ? () -> {
		} : subscribers.connect(wait.service().value(), wait.subscriber(), SubscriberProtocol.POLL, null);
		if (!cap.tryAcquire()) {
			disconnect.run();
			throw new OverloadedException("this node serves its maximum of %d watchers; retry later or on another node"
				.formatted(settings.maxWatchers()));
		}
		Waiter waiter = new Waiter(wait);
		wait.result().onTimeout(wait.unchanged());
		wait.result().onCompletion(() -> {
			cap.release();
			disconnect.run();
			follower.forget(waiter);
		});
		follower.await(waiter);
	}

	/**
	 * Completes {@code wait} with the first catalog this node reads after a change that
	 * passed its revision, or with the unchanged answer once its timeout is up. No thread
	 * waits; tokenless waits count against a smaller share of the cap.
	 * @throws OverloadedException when the node serves its maximum of watchers, or of
	 * tokenless ones
	 */
	public void awaitCatalog(CatalogWait wait) {
		boolean acquired = wait.tokenless() ? cap.tryAcquireTokenless() : cap.tryAcquire();
		if (!acquired) {
			throw new OverloadedException(wait.tokenless()
					? "this node serves its maximum of %d blocking queries without a token; send a token, retry later or on another node"
						.formatted(settings.maxTokenlessWatchers())
					: "this node serves its maximum of %d watchers; retry later or on another node"
						.formatted(settings.maxWatchers()));
		}
		wait.result().onTimeout(wait.unchanged());
		wait.result().onCompletion(() -> {
			if (wait.tokenless()) {
				cap.releaseTokenless();
			}
			else {
				cap.release();
			}
			follower.forget(wait);
		});
		follower.await(wait);
	}

	/**
	 * The state of {@code service} this node applied from the change log, the node
	 * following it from now on while it is asked for (as long as a watched service):
	 * completed at once when the node follows it already, otherwise once it is loaded,
	 * never on a thread that delivers to watchers. Empty when the service is not
	 * registered; failed when it cannot be loaded (the database is unreachable). A load
	 * is shared by every query that asks meanwhile: bound a copy of it, never the future
	 * itself.
	 */
	public CompletableFuture<Optional<InstanceList>> applied(ServiceName service) {
		// Asked before the state is looked at: the reader cannot forget the service in
		// between.
		follower.asked(service.value());
		Optional<InstanceList> state = applied.applied(service);
		if (state.isPresent()) {
			return CompletableFuture.completedFuture(state);
		}
		String name = service.value();
		CompletableFuture<Optional<InstanceList>> load = loading.computeIfAbsent(name, follower::follow);
		load.whenComplete((loaded, failure) -> loading.remove(name, load));
		return load;
	}

	/**
	 * For a reader that stays open (an xDS stream's resources): hands {@code next} the
	 * state of {@code service} this node holds, then every state it applies after it, in
	 * order, until the returned handle is run; the service stays followed meanwhile. A
	 * service that is not registered is followed as an empty one. {@code next} runs on
	 * the thread that delivers to every watcher: it must hand the state on and return at
	 * once. A service this node cannot load yet (the database is away) is handed over
	 * once it can. The follower counts against no cap: the caller's own streams do.
	 * @return closes the following; running it again does nothing
	 */
	public Runnable follow(ServiceName service, Consumer<InstanceList> next) {
		StateFollower following = new StateFollower(service.value(), next);
		follower.follow(following);
		AtomicBoolean open = new AtomicBoolean(true);
		return () -> {
			if (open.compareAndSet(true, false)) {
				follower.unfollow(following);
			}
		};
	}

	/**
	 * Up to a sixteenth more, so that a herd of pollers that started together spreads
	 * out.
	 */
	private static long jittered(Duration wait) {
		long millis = Math.max(1, wait.toMillis());
		return millis + ThreadLocalRandom.current().nextLong(millis / 16 + 1);
	}

}
