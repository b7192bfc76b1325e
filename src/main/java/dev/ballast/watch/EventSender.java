package dev.ballast.watch;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.ObjectMapper;

import org.springframework.stereotype.Component;

/**
 * Queues events to a stream on the delivering thread: moves the stream's position,
 * records what a named subscriber was delivered, and replaces the backlog of a stream
 * that fell a whole queue behind with one snapshot per service.
 */
@Component
class EventSender {

	private final Subscribers subscribers;

	private final ObjectMapper json;

	private final Counter resynchronized;

	EventSender(Subscribers subscribers, ObjectMapper json, MeterRegistry meters) {
		this.subscribers = subscribers;
		this.json = json;
		this.resynchronized = Counter.builder("ballast.watch.resynchronized")
			.description("Streams that fell a whole queue behind and were sent a snapshot instead")
			.register(meters);
	}

	/**
	 * A new stream's first events for one service: exactly the changes it missed since
	 * the position it resumes from, or a snapshot.
	 * @param logged the change at that position and those after it read from the log, or
	 * {@code null}
	 */
	void initial(Watcher watcher, ServiceFeed feed, List<Change> logged, Function<String, ServiceFeed> feeds) {
		Position from = watcher.resumeFrom(feed.service());
		if (from != null && watcher.zone() != null) {
			Optional<List<ZoneStep>> steps = feed.zoneStepsAfter(watcher.zone(), from, json::writeValueAsString);
			if (steps.isPresent()) {
				watcher.advance(feed.service(), feed.position());
				watcher.zoneViewAt(feed.service(), feed.position());
				delivered(watcher, feed.service(), feed.revision());
				for (ZoneStep step : steps.get()) {
					// A stream of several services gives each step's last event its own
					// id.
					watcher.advance(feed.service(), step.to());
					if (!zoneStep(watcher, feed.service(), step, feeds)) {
						return;
					}
				}
				return;
			}
		}
		List<Change> missed = from == null || watcher.zone() != null ? null : missedSince(feed, from, logged);
		if (missed == null) {
			snapshot(watcher, feed, feeds);
		}
		else {
			for (Change change : missed) {
				change(watcher, change, null, feeds);
			}
		}
	}

	/**
	 * Exactly the changes after {@code from}, from memory or from what was read from the
	 * log up to this revision; null when neither holds all of them, or when the change
	 * they hold at {@code from} is not the one the client had (another history's).
	 * @param logged the change at {@code from} (none for revision 0) and those after it
	 */
	static List<Change> missedSince(ServiceFeed feed, Position from, List<Change> logged) {
		Optional<List<Change>> held = feed.changesAfter(from);
		if (held.isPresent()) {
			return held.get();
		}
		if (logged == null || from.revision() >= feed.revision()) {
			return null;
		}
		List<Change> after = logged;
		if (from.revision() > 0) {
			if (logged.isEmpty() || !logged.getFirst().position().sameAs(from)) {
				return null;
			}
			after = logged.subList(1, logged.size());
		}
		for (int i = 0; i < after.size(); i++) {
			if (after.get(i).revision() != from.revision() + 1 + i) {
				return null;
			}
		}
		if (after.size() != feed.revision() - from.revision()
				|| (!after.isEmpty() && !after.getLast().position().sameAs(feed.position()))) {
			return null;
		}
		return after;
	}

	void snapshot(Watcher watcher, ServiceFeed feed, Function<String, ServiceFeed> feeds) {
		watcher.advance(feed.service(), feed.position());
		delivered(watcher, feed.service(), feed.revision());
		String zone = watcher.zone();
		String data;
		if (zone == null) {
			data = feed.snapshotData(json::writeValueAsString);
		}
		else {
			watcher.zoneViewAt(feed.service(), feed.position());
			data = feed.zoneSnapshotData(zone, json::writeValueAsString);
		}
		frame(watcher, EventFrame.of(watcher.eventId(feed.service()), "snapshot", data), feeds);
	}

	/**
	 * A change to a zone's stream: once the feed has applied its batch (the change is its
	 * last), the instances whose weight in the zone's view moved, computed once for every
	 * stream of the zone; a whole view only when the stream was not at the view before.
	 * Its position moves all the same, so a subscriber's delivered revision keeps up.
	 */
	private void zoneChange(Watcher watcher, Change change, Function<String, ServiceFeed> feeds) {
		watcher.advance(change.service(), change.position());
		delivered(watcher, change.service(), change.revision());
		ServiceFeed feed = feeds.apply(change.service());
		if (feed == null || change.revision() != feed.revision()) {
			return;
		}
		ZoneStep step = feed.zoneStep(watcher.zone(), json::writeValueAsString);
		Position at = watcher.zoneViewAt(feed.service());
		if (step == null || at == null || !at.sameAs(step.from())) {
			snapshot(watcher, feed, feeds);
			return;
		}
		watcher.zoneViewAt(feed.service(), step.to());
		zoneStep(watcher, feed.service(), step, feeds);
	}

	/**
	 * Queues a step's events; false when the stream fell a whole queue behind meanwhile
	 * and was sent snapshots instead, which hold the rest.
	 */
	private boolean zoneStep(Watcher watcher, String service, ZoneStep step, Function<String, ServiceFeed> feeds) {
		for (EventFrame frame : step.framesFor(watcher, service)) {
			if (!frame(watcher, frame, feeds)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * @param singleServiceFrame the change's frame for a stream of one service, rendered
	 * once for all of them; or {@code null}
	 */
	void change(Watcher watcher, Change change, EventFrame singleServiceFrame, Function<String, ServiceFeed> feeds) {
		if (watcher.zone() != null) {
			zoneChange(watcher, change, feeds);
			return;
		}
		watcher.advance(change.service(), change.position());
		delivered(watcher, change.service(), change.revision());
		EventFrame frame = singleServiceFrame != null && !watcher.multiplexed() ? singleServiceFrame
				: EventFrame.of(watcher.eventId(change.service()), change.eventName(), change.data());
		frame(watcher, frame, feeds);
	}

	/**
	 * Queues a frame, or resynchronizes the stream when its queue is full; false when it
	 * did the latter.
	 */
	boolean frame(Watcher watcher, EventFrame frame, Function<String, ServiceFeed> feeds) {
		if (watcher.offer(frame)) {
			return true;
		}
		resynchronize(watcher, feeds);
		return false;
	}

	/**
	 * A stream fell a whole queue behind: its queued events are replaced by one snapshot
	 * per service, which brings it to the same state with less to send.
	 */
	private void resynchronize(Watcher watcher, Function<String, ServiceFeed> feeds) {
		resynchronized.increment();
		watcher.discardQueued();
		for (String service : watcher.services()) {
			ServiceFeed feed = feeds.apply(service);
			if (feed != null) {
				snapshot(watcher, feed, feeds);
			}
		}
	}

	private void delivered(Watcher watcher, String service, long revision) {
		if (watcher.subscriber() != null) {
			subscribers.delivered(service, watcher.subscriber(), revision);
		}
	}

}
