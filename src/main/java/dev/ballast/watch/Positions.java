package dev.ballast.watch;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Where one stream stands in each of its services: where the client said it was
 * (Last-Event-ID) and the last revision sent, which make the id of the next event.
 * Touched only by the feed thread.
 */
final class Positions {

	private final List<String> services;

	private final boolean multiplexed;

	private final Map<String, Long> resumeFrom;

	/**
	 * The last revision sent per service of a multiplexed stream, in name order so that
	 * event ids are stable.
	 */
	private final Map<String, Long> sent = new TreeMap<>();

	/**
	 * The last revision sent on a stream of one service: a field, not a map entry, as it
	 * moves for every event of every such stream.
	 */
	private long last;

	Positions(List<String> services, boolean multiplexed, Map<String, Long> resumeFrom) {
		this.services = List.copyOf(services);
		this.multiplexed = multiplexed;
		this.resumeFrom = Map.copyOf(resumeFrom);
	}

	List<String> services() {
		return services;
	}

	boolean multiplexed() {
		return multiplexed;
	}

	/** Where the client said it was (Last-Event-ID), per service. */
	Long resumeFrom(String service) {
		return resumeFrom.get(service);
	}

	/** Records that an event at {@code revision} of {@code service} is being sent. */
	void advance(String service, long revision) {
		if (multiplexed) {
			sent.put(service, revision);
		}
		else {
			last = revision;
		}
	}

	/**
	 * The id of the event just advanced to: the revision, or for a stream of several
	 * services every service's position, {@code a:42,b:17}.
	 */
	String eventId(String service) {
		if (!multiplexed) {
			return Long.toString(last);
		}
		return sent.entrySet()
			.stream()
			.map(position -> position.getKey() + ":" + position.getValue())
			.collect(Collectors.joining(","));
	}

}
