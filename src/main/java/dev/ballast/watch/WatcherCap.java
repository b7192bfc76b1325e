package dev.ballast.watch;

import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

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

	WatcherCap(WatchSettings settings, MeterRegistry meters) {
		this.max = settings.maxWatchers();
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

	int open() {
		return open.get();
	}

}
