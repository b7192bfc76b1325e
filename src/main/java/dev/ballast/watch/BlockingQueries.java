package dev.ballast.watch;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import dev.ballast.instance.BlockingQuery;
import dev.ballast.instance.BlockingReads;
import dev.ballast.instance.BlockingWait;
import dev.ballast.instance.ServiceName;
import dev.ballast.web.OverloadedException;

import org.springframework.stereotype.Component;

/**
 * Blocking queries as this module serves them to the instance reads: their parameters, a
 * polling subscriber's progress, and a wait on the node's applied state that counts
 * against the node's cap of watchers.
 */
@Component
class BlockingQueries implements BlockingReads {

	private final ChangeFollower follower;

	private final WatcherCap cap;

	private final Subscribers subscribers;

	private final WatchSettings settings;

	BlockingQueries(ChangeFollower follower, WatcherCap cap, Subscribers subscribers, WatchSettings settings) {
		this.follower = follower;
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
		} : subscribers.connect(wait.service().value(), wait.subscriber());
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
	 * Up to a sixteenth more, so that a herd of pollers that started together spreads
	 * out.
	 */
	private static long jittered(Duration wait) {
		long millis = Math.max(1, wait.toMillis());
		return millis + ThreadLocalRandom.current().nextLong(millis / 16 + 1);
	}

}
