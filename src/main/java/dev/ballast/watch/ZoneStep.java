package dev.ballast.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ballast.registry.ChangeLog;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;

/**
 * How one zone's view of a service moved from one revision applied to the next: an
 * {@code upsert} of each instance whose weight, address or port in the zone's view moved
 * (what a balancer routes by), and a {@code remove} of each that left. Computed once per
 * zone and batch, and sent to every stream of the zone, so a zone's stream costs what a
 * flat one does: the events, not the whole view.
 *
 * <p>
 * An upsert carries the instance as the zone sees it, with the view's revision: one
 * change can move several instances of a zone's view (a spill), so the events of one step
 * share that revision, and only the step's last event carries the id. A client that
 * reconnects in the middle of a step resumes from the step before and gets all of it
 * again; every event of it is idempotent.
 *
 * @param from where the view stood before
 * @param to where it stands after
 * @param events what changed, in instance id order; empty when nothing a balancer routes
 * by moved
 * @param frames the events framed for a stream of this one service, the last with the id
 * of {@code to}
 */
record ZoneStep(Position from, Position to, List<Event> events, List<EventFrame> frames) {

	/** One event of a step: its name and data. */
	record Event(String name, String data) {
	}

	/**
	 * The step from {@code before} to {@code after}, two views of one zone.
	 * @param json renders an instance or a removal as its event's data
	 */
	static ZoneStep between(Position from, InstanceList before, Position to, InstanceList after,
			Function<Object, String> json) {
		Map<String, InstanceView> old = new HashMap<>();
		before.instances().forEach(instance -> old.put(instance.id(), instance));
		List<Event> events = new ArrayList<>();
		for (InstanceView instance : after.instances()) {
			InstanceView was = old.remove(instance.id());
			if (was == null || !routedAlike(was, instance)) {
				events.add(new Event("upsert", json.apply(instance.atRevision(to.revision()))));
			}
		}
		old.keySet()
			.stream()
			.sorted()
			.forEach(id -> events
				.add(new Event("remove", json.apply(new ChangeLog.Removal(after.service(), id, to.revision())))));
		List<EventFrame> frames = new ArrayList<>(events.size());
		for (int i = 0; i < events.size(); i++) {
			Event event = events.get(i);
			frames.add(EventFrame.of(i == events.size() - 1 ? to.id() : null, event.name(), event.data()));
		}
		return new ZoneStep(from, to, List.copyOf(events), List.copyOf(frames));
	}

	/**
	 * Whether a balancer routes to both alike: the weight, and the address and port, as
	 * an instance that moves keeps its weight and a balancer still sending to its old
	 * address would miss it.
	 */
	private static boolean routedAlike(InstanceView a, InstanceView b) {
		return a.effectiveWeight().equals(b.effectiveWeight()) && a.address().equals(b.address())
				&& a.port().equals(b.port());
	}

	/**
	 * The events framed for {@code watcher}: this step's own frames for a stream of one
	 * service; for a stream of several, the last with the stream's own id.
	 */
	List<EventFrame> framesFor(Watcher watcher, String service) {
		if (!watcher.multiplexed()) {
			return frames;
		}
		List<EventFrame> own = new ArrayList<>(events.size());
		for (int i = 0; i < events.size(); i++) {
			Event event = events.get(i);
			own.add(EventFrame.of(i == events.size() - 1 ? watcher.eventId(service) : null, event.name(),
					event.data()));
		}
		return own;
	}

}
