package dev.ballast.watch;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Where one stream stands in each of its services: where the client said it was
 * (Last-Event-ID) and the last position sent, which make the id of the next event.
 * Touched only by the feed thread.
 */
final class Positions {

	private final List<String> services;

	private final boolean multiplexed;

	private final Map<String, Position> resumeFrom;

	/**
	 * The last position sent per service of a multiplexed stream, in name order so that
	 * event ids are stable.
	 */
	private final Map<String, Position> sent = new TreeMap<>();

	/**
	 * The last position sent on a stream of one service: a field, not a map entry, as it
	 * moves for every event of every such stream.
	 */
	private Position last;

	Positions(List<String> services, boolean multiplexed, Map<String, Position> resumeFrom) {
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
	Position resumeFrom(String service) {
		return resumeFrom.get(service);
	}

	/** Records that an event at {@code position} of {@code service} is being sent. */
	void advance(String service, Position position) {
		if (multiplexed) {
			sent.put(service, position);
		}
		else {
			last = position;
		}
	}

	/**
	 * The id of the event just advanced to: the position ({@link Position#id()}), or for
	 * a stream of several services every service's position, {@code a:42,b:17@9f3a01c2}.
	 */
	String eventId(String service) {
		if (!multiplexed) {
			return last.id();
		}
		return sent.entrySet()
			.stream()
			.map(position -> position.getKey() + ":" + position.getValue().id())
			.collect(Collectors.joining(","));
	}

}
