package dev.ballast.xds;

import java.util.HashMap;
import java.util.Map;

import dev.ballast.watch.SubscriberProtocol;
import dev.ballast.watch.Subscribers;

/**
 * A stream's client as a subscriber of the services whose endpoints it reads, named by
 * its node id: connected while it reads them, and told what was delivered to it, what it
 * ACKed (which confirms drains, as an SSE subscriber's acknowledgement does) and what it
 * refused. A node id that is no subscriber name is not recorded. Guarded by its stream.
 */
final class NodeSubscriber {

	private final Subscribers subscribers;

	private final String name;

	private final String zone;

	private final Map<String, Runnable> connected = new HashMap<>();

	/**
	 * @param name its node id when that is a subscriber name, else {@code null}
	 * @param zone the zone whose view it reads, or {@code null}
	 */
	NodeSubscriber(Subscribers subscribers, String name, String zone) {
		this.subscribers = subscribers;
		this.name = name;
		this.zone = zone;
	}

	void reads(String service) {
		if (name != null && !connected.containsKey(service)) {
			connected.put(service, subscribers.connect(service, name, SubscriberProtocol.XDS, zone));
		}
	}

	void stopsReading(String service) {
		Runnable disconnect = connected.remove(service);
		if (disconnect != null) {
			disconnect.run();
		}
	}

	void delivered(Map<String, Long> revisions) {
		if (name != null) {
			revisions.forEach((service, revision) -> subscribers.delivered(service, name, revision));
		}
	}

	void acked(Map<String, Long> revisions) {
		if (name != null) {
			revisions.forEach((service, revision) -> subscribers.acked(service, name, revision));
		}
	}

	void nacked(Map<String, Long> revisions, String detail) {
		if (name != null) {
			revisions.forEach((service, revision) -> subscribers.nacked(service, name, revision, detail));
		}
	}

	/** The stream ended: it reads nothing any more. */
	void gone() {
		connected.values().forEach(Runnable::run);
		connected.clear();
	}

}
