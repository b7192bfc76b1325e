package dev.ballast.watch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LocalitySetting;
import dev.ballast.registry.ZoneView;

/**
 * One service as this node knows it: its instances at a revision, the last changes, and
 * who is watching it. Only the delivering thread touches it; {@link #current()} may be
 * read from any thread, and the revision applied is also reported to the reader (see
 * {@link Followed#delivered()}).
 */
final class ServiceFeed {

	private final String service;

	private final TreeMap<String, InstanceView> instances = new TreeMap<>();

	private final ArrayDeque<Change> recent = new ArrayDeque<>();

	private final int recentCapacity;

	private AtomicReference<Position> delivered;

	private final Set<Watcher> watchers = new HashSet<>();

	private final List<Waiter> waiters = new ArrayList<>();

	private final List<StateFollower> followers = new ArrayList<>();

	private Position position;

	private LocalitySetting locality;

	private volatile InstanceList current;

	private String snapshotData;

	/**
	 * Per zone asked for, its view at the current revision, computed once for its
	 * streams.
	 */
	private final Map<String, InstanceList> zoneViews = new HashMap<>();

	private final Map<String, String> zoneData = new HashMap<>();

	/** The streams of each zone asked for; a zone's steps are kept while it has any. */
	private final Map<String, Integer> zoneStreams = new HashMap<>();

	/** Where the state published last stands. */
	private Position published;

	/** Where the state published before stood, and the zones' views computed there. */
	private Position previousPosition;

	private Map<String, InstanceList> previousZoneViews = Map.of();

	/** Per zone, its step to the current revision, once computed. */
	private final Map<String, ZoneStep> currentSteps = new HashMap<>();

	/**
	 * Per zone with streams, its last steps in order, each starting where the one before
	 * ended: what a zone's stream that reconnects is sent instead of a whole view.
	 */
	private final Map<String, ArrayDeque<ZoneStep>> zoneSteps = new HashMap<>();

	ServiceFeed(LoadedService loaded, int recentCapacity, AtomicReference<Position> delivered) {
		this.service = loaded.state().service();
		this.recentCapacity = recentCapacity;
		reset(loaded, delivered);
	}

	String service() {
		return service;
	}

	long revision() {
		return position.revision();
	}

	/** The revision applied, in the history it was committed in. */
	Position position() {
		return position;
	}

	/** The instances at the revision this node has applied; safe from any thread. */
	InstanceList current() {
		return current;
	}

	/**
	 * Replaces the state with one read from the database, forgetting recent changes.
	 * @param delivered where the position applied is reported to the reader from now on
	 */
	void reset(LoadedService loaded, AtomicReference<Position> delivered) {
		instances.clear();
		loaded.state().instances().forEach(instance -> instances.put(instance.id(), instance));
		recent.clear();
		position = loaded.position();
		locality = loaded.state().locality();
		this.delivered = delivered;
		delivered.set(position);
		publish();
		// The views before were of another state: no step leads from them to this one.
		previousZoneViews = Map.of();
		zoneSteps.clear();
	}

	/**
	 * Applies the next change. Returns false, and changes nothing, when it is not the
	 * next revision: some revision in between was not read.
	 */
	boolean apply(Change change) {
		if (change.revision() != position.revision() + 1) {
			return false;
		}
		switch (change.kind()) {
			case UPSERT -> instances.put(change.instanceId(), change.instance());
			case REMOVE -> instances.remove(change.instanceId());
			case SERVICE -> locality = change.locality();
			// Its instances' removals came first; nothing is left to clear.
			case DELETE -> instances.clear();
		}
		position = change.position();
		delivered.set(position);
		recent.addLast(change);
		if (recent.size() > recentCapacity) {
			recent.removeFirst();
		}
		return true;
	}

	/** Publishes the applied state to other threads; call once per batch of changes. */
	void publish() {
		previousPosition = published;
		published = position;
		current = new InstanceList(service, position.revision(), List.copyOf(instances.values()), locality);
		snapshotData = null;
		previousZoneViews = zoneViews.isEmpty() ? Map.of() : new HashMap<>(zoneViews);
		zoneViews.clear();
		zoneData.clear();
		currentSteps.clear();
	}

	/**
	 * The changes after {@code after} if this node holds all of them and {@code after}
	 * itself, in the same history: empty when it holds them not, or holds another change
	 * at that revision.
	 */
	Optional<List<Change>> changesAfter(Position after) {
		if (after.revision() == position.revision()) {
			return after.sameAs(position) ? Optional.of(List.of()) : Optional.empty();
		}
		if (after.revision() > position.revision() || recent.isEmpty()
				|| recent.getFirst().revision() > after.revision() + 1) {
			return Optional.empty();
		}
		if (after.revision() > 0 && recent.getFirst().revision() == after.revision() + 1) {
			// The change at after has fallen out of memory: its history is not known
			// here.
			return Optional.empty();
		}
		List<Change> missed = new ArrayList<>();
		for (Change change : recent) {
			if (change.revision() == after.revision() && !change.position().sameAs(after)) {
				return Optional.empty();
			}
			if (change.revision() > after.revision()) {
				missed.add(change);
			}
		}
		return Optional.of(missed);
	}

	/** The JSON of a snapshot at the current revision, rendered once per revision. */
	String snapshotData(SnapshotRenderer renderer) {
		if (snapshotData == null) {
			snapshotData = renderer.render(current);
		}
		return snapshotData;
	}

	/** The JSON of {@code zone}'s view at the current revision, rendered once. */
	String zoneSnapshotData(String zone, SnapshotRenderer renderer) {
		return zoneData.computeIfAbsent(zone, z -> renderer.render(zoneView(z)));
	}

	private InstanceList zoneView(String zone) {
		return zoneViews.computeIfAbsent(zone, z -> ZoneView.of(current, z));
	}

	/**
	 * How {@code zone}'s view moved from the state published before to the current one,
	 * computed once for all the zone's streams; {@code null} when the view before is not
	 * known here (no stream of the zone had it, or the feed was reset since).
	 * @param json renders an event's data
	 */
	ZoneStep zoneStep(String zone, Function<Object, String> json) {
		ZoneStep step = currentSteps.get(zone);
		if (step != null) {
			return step;
		}
		InstanceList before = previousZoneViews.get(zone);
		if (before == null) {
			return null;
		}
		step = ZoneStep.between(previousPosition, before, published, zoneView(zone), json);
		currentSteps.put(zone, step);
		if (zoneStreams.containsKey(zone)) {
			ArrayDeque<ZoneStep> steps = zoneSteps.computeIfAbsent(zone, z -> new ArrayDeque<>());
			if (!steps.isEmpty() && !steps.getLast().to().sameAs(step.from())) {
				steps.clear();
			}
			steps.addLast(step);
			if (steps.size() > recentCapacity) {
				steps.removeFirst();
			}
		}
		return step;
	}

	/**
	 * The steps of {@code zone}'s view after {@code after}, up to the current state, if
	 * this node holds every one of them in the same history; empty when it does not (a
	 * zone's views are not in the change log, so only what its streams were sent here is
	 * held).
	 */
	Optional<List<ZoneStep>> zoneStepsAfter(String zone, Position after, Function<Object, String> json) {
		if (after.sameAs(position)) {
			return Optional.of(List.of());
		}
		zoneStep(zone, json);
		ArrayDeque<ZoneStep> steps = zoneSteps.get(zone);
		if (steps == null || steps.isEmpty() || !steps.getLast().to().sameAs(position)) {
			return Optional.empty();
		}
		List<ZoneStep> missed = new ArrayList<>();
		for (ZoneStep step : steps) {
			if (!missed.isEmpty() || step.from().sameAs(after)) {
				missed.add(step);
			}
		}
		return missed.isEmpty() ? Optional.empty() : Optional.of(missed);
	}

	/** A stream starts receiving this service's events. */
	void watch(Watcher watcher) {
		if (watchers.add(watcher) && watcher.zone() != null) {
			zoneStreams.merge(watcher.zone(), 1, Integer::sum);
		}
	}

	/** A stream no longer receives this service's events. */
	void unwatch(Watcher watcher) {
		if (watchers.remove(watcher) && watcher.zone() != null
				&& zoneStreams.merge(watcher.zone(), -1, Integer::sum) == 0) {
			zoneStreams.remove(watcher.zone());
			zoneSteps.remove(watcher.zone());
		}
	}

	/**
	 * The streams of this service; changed only through {@link #watch} and
	 * {@link #unwatch}.
	 */
	Set<Watcher> watchers() {
		return Collections.unmodifiableSet(watchers);
	}

	List<Waiter> waiters() {
		return waiters;
	}

	List<StateFollower> followers() {
		return followers;
	}

	/** Renders a snapshot's data. */
	@FunctionalInterface
	interface SnapshotRenderer {

		String render(InstanceList snapshot);

	}

}
