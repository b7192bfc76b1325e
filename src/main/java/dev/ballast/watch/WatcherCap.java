package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.stereotype.Component;

/**
 * How many streams and waiting blocking queries this node serves at once. Past the cap a
 * node sheds new ones with 503, so that a storm of reconnecting clients spreads over the
 * other nodes instead of exhausting this one. Waits without a token count against a
 * smaller share of it too: anyone can open them, and they must not take the room of
 * callers with a token.
 */
@Component
class WatcherCap {

	private final AtomicInteger open = new AtomicInteger();

	private final AtomicInteger tokenless = new AtomicInteger();

	private final int max;

	private final int maxTokenless;

	WatcherCap(WatchSettings settings, MeterRegistry meters) {
		this.max = settings.maxWatchers();
		this.maxTokenless = settings.maxTokenlessWatchers();
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

	int open() {
		return open.get();
	}

}
