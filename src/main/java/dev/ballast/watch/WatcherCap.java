package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * How many streams and waiting blocking queries this node serves at once. Past the cap a
 * node sheds new ones with 503, so that a storm of reconnecting clients spreads over the
 * other nodes instead of exhausting this one.
 */
@Component
class WatcherCap {

	private final AtomicInteger open = new AtomicInteger();

	private final int max;

	WatcherCap(WatchSettings settings) {
		this.max = settings.maxWatchers();
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

	int open() {
		return open.get();
	}

}
