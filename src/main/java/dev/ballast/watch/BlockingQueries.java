package dev.ballast.watch;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.ballast.instance.BlockingQuery;
import dev.ballast.instance.BlockingReads;
import dev.ballast.instance.BlockingWait;
import dev.ballast.instance.CatalogWait;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;
import dev.ballast.web.OverloadedException;

import org.springframework.stereotype.Component;

/**
 * Blocking queries as this module serves them to the reads of other modules (REST,
 * Consul, DNS, xDS): their parameters, a polling subscriber's progress, the node's
 * applied state, waits on it that count against the node's one cap of watchers, and
 * followers of it that stay open.
 */
@Component
class BlockingQueries implements BlockingReads {

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

	@Override
	public BlockingQuery query(String index, String wait, String subscriber) {
		Long after = QueryParameters.index(index);
		Duration timeout = QueryParameters.wait(wait, settings.defaultWait(), settings.maxWait());
		return new BlockingQuery(after, jittered(timeout), QueryParameters.subscriber(subscriber));
	}

	@Override
	public void acknowledged(ServiceName service, String subscriber, long revision) {
		subscribers.acked(service.value(), subscriber, revision);
	}

	@Override
	public void delivered(ServiceName service, String subscriber, long revision) {
		subscribers.delivered(service.value(), subscriber, revision);
	}

	@Override
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

	@Override
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

	@Override
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

	@Override
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
