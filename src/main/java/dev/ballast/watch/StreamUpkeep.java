package dev.ballast.watch;

import java.util.concurrent.ThreadLocalRandom;

import dev.ballast.security.TokensInForce;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * The upkeep of live streams, on the caller's thread: keepalives, age limits, stalls, and
 * the end of streams whose token was deleted or expired. None of it needs the delivering
 * thread: each acts on one stream's own queue.
 */
@Component
class StreamUpkeep {

	private static final Logger log = LoggerFactory.getLogger(StreamUpkeep.class);

	private final Streams streams;

	private final WatchSettings settings;

	StreamUpkeep(Streams streams, WatchSettings settings) {
		this.streams = streams;
		this.settings = settings;
	}

	/** Keepalives, age limits and stalls of every live stream; called every second. */
	void tick() {
		long now = System.nanoTime();
		long keepalive = settings.keepalive().toNanos();
		long stall = settings.stallTimeout().toNanos();
		for (Watcher watcher : streams.live()) {
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

	/**
	 * A stream whose token was deleted, or has expired, ends at once; reconnecting, it
	 * gets 401.
	 */
	@EventListener
	void on(TokensInForce tokens) {
		for (Watcher watcher : streams.live()) {
			if (!tokens.ids().contains(watcher.token())) {
				watcher.finish(EventFrame.reconnect("token-revoked", retryMillis()));
			}
		}
	}

	/** Clients told to reconnect come back spread over a second, not all at once. */
	static long retryMillis() {
		return 200 + ThreadLocalRandom.current().nextLong(1000);
	}

}
