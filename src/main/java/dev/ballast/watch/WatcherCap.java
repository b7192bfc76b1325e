package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * How many streams and waiting blocking queries this node serves at once, and how many
 * streams of those one token may hold open. Past the node's cap a node sheds new ones
 * with 503, so that a storm of reconnecting clients spreads over the other nodes instead
 * of exhausting this one; past a token's, that token's new streams are shed the same way,
 * so that one caller (a leaked loop, a stolen reader token) cannot take every stream the
 * node has. Waits without a token count against a smaller share of the node's cap too:
 * anyone can open them, and they must not take the room of callers with a token.
 */
@Component
class WatcherCap {

	private final AtomicInteger open = new AtomicInteger();

	private final AtomicInteger tokenless = new AtomicInteger();

	private final int max;

	private final int maxTokenless;

	/** Open streams by token id. */
	private final KeyedCap streamsByToken;

	WatcherCap(WatchSettings settings, MeterRegistry meters) {
		this.max = settings.maxWatchers();
		this.maxTokenless = settings.maxTokenlessWatchers();
		this.streamsByToken = new KeyedCap(settings.maxStreamsPerToken());
		Gauge.builder("ballast.watch.open", open, AtomicInteger::get)
			.description("Open watch streams and waiting blocking queries on this node")
			.register(meters);
	}

	boolean tryAcquire() {
		if (open.incrementAndGet() > max) {
			open.decrementAndGet();
			return false;
		}
		return true;
	}

	void release() {
		open.decrementAndGet();
	}

	/** Like {@link #tryAcquire()}, for a wait without a token: within its share too. */
	boolean tryAcquireTokenless() {
		if (tokenless.incrementAndGet() > maxTokenless) {
			tokenless.decrementAndGet();
			return false;
		}
		if (!tryAcquire()) {
			tokenless.decrementAndGet();
			return false;
		}
		return true;
	}

	void releaseTokenless() {
		release();
		tokenless.decrementAndGet();
	}

	/**
	 * Takes one of {@code token}'s streams, besides the node's place
	 * ({@link #tryAcquire}) that the stream also takes.
	 * @return false when the token holds its maximum
	 */
	boolean tryAcquireStream(String token) {
		return streamsByToken.tryTake(token);
	}

	void releaseStream(String token) {
		streamsByToken.release(token);
	}

	int open() {
		return open.get();
	}

}
