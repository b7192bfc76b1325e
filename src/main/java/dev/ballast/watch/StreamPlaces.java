package dev.ballast.watch;

import dev.ballast.web.OverloadedException;

import org.springframework.stereotype.Component;

/**
 * A long-lived stream's place on this node, whatever speaks on it (SSE, xDS): one of the
 * node's watchers ({@code ballast.watch.max-watchers}) and one of its token's streams
 * ({@code ballast.watch.max-streams-per-token}), so that one caller cannot take every
 * stream the node has, by any protocol.
 */
@Component
public class StreamPlaces {

	private final WatcherCap cap;

	private final WatchSettings settings;

	StreamPlaces(WatcherCap cap, WatchSettings settings) {
		this.cap = cap;
		this.settings = settings;
	}

	/**
	 * Takes a place for a stream of the token with id {@code token}.
	 * @return gives the place back; call it once, when the stream ends
	 * @throws OverloadedException when the token holds its maximum of streams on this
	 * node, or the node serves its maximum of watchers
	 */
	public Runnable take(String token) {
		if (!cap.tryAcquireStream(token)) {
			throw new OverloadedException(("this token holds its maximum of %d open streams on this node; close one, "
					+ "or give the clients that share the token tokens of their own")
				.formatted(settings.maxStreamsPerToken()));
		}
		if (!cap.tryAcquire()) {
			cap.releaseStream(token);
			throw new OverloadedException("this node serves its maximum of %d watchers; retry later or on another node"
				.formatted(settings.maxWatchers()));
		}
		return () -> {
			cap.release();
			cap.releaseStream(token);
		};
	}

}
