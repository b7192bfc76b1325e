package dev.ballast.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import dev.ballast.web.NotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services this node follows, and how far: loads a service's state once, then reads
 * its change log and hands the changes to {@link Streams} in revision order and without a
 * gap, starting over from the state when the log no longer holds a revision. What the
 * delivering thread applied from this node's own commits is not read again. Touched only
 * on the reader thread of {@link ChangeFollower}.
 *
 * <p>
 * A position is a revision in a history of the database ({@link Position}). When the
 * database no longer holds the position this node stands at (a promoted standby lacked
 * the last commits: its revision is behind this node's, or the same revision holds
 * another change, or its next changes come from a history that does not contain this
 * node's position), the service is loaded afresh and its streams get a snapshot: what
 * they were sent is no longer the database's history.
 */
final class FollowedServices {

	private static final Logger log = LoggerFactory.getLogger(FollowedServices.class);

	private final ChangeReader reader;

	private final Streams streams;

	private final WatchSettings settings;

	private final Map<String, Followed> followed = new HashMap<>();

	FollowedServices(ChangeReader reader, Streams streams, WatchSettings settings) {
		this.reader = reader;
		this.streams = streams;
		this.settings = settings;
	}

	/**
	 * Loads the service's state and hands it over, unless this node follows it already.
	 * @param unregistered whether a service that is not registered is followed too, as an
	 * empty one (for a watcher that waits for it to appear); else it is refused
	 * @throws dev.ballast.web.NotFoundException when it is not registered and may not be
	 */
	Followed follow(String service, boolean unregistered) {
		Followed position = followed.get(service);
		if (position == null) {
			LoadedService loaded;
			boolean registered = true;
			try {
				loaded = reader.load(service);
			}
			catch (NotFoundException ex) {
				if (!unregistered) {
					throw ex;
				}
				// Read again for the revision the name stands at; registered meanwhile,
				// it is only forgotten sooner, and loaded again when asked for.
				loaded = reader.loadOrNone(service);
				registered = false;
			}
			position = new Followed(loaded.position(), settings.recentChanges());
			followed.put(service, position);
			if (!registered) {
				position.markUnregistered();
			}
			streams.reset(loaded, position.delivered(), false);
		}
		return position;
	}

	/**
	 * Stops following a service that was loaded as not registered and has not changed
	 * since, once {@code unwanted} (nobody waits for it): such a name is held only while
	 * someone waits for it, within the watcher caps, so that asking for made-up names
	 * leaves nothing behind.
	 */
	void forgetUnregistered(String service, java.util.function.BooleanSupplier unwanted) {
		Followed position = followed.get(service);
		if (position == null) {
			return;
		}
		position.catchUpToDelivered();
		if (position.stillUnregistered() && unwanted.getAsBoolean()) {
			followed.remove(service);
			streams.forget(service);
		}
	}

	/**
	 * The change at {@code from} and those after it read from the log, when the
	 * delivering thread will not hold them in memory; empty when it will, or when
	 * {@code from} is not a position of this service (then the stream starts with a
	 * snapshot).
	 */
	Optional<List<Change>> missed(String service, Position from) {
		Followed position = followed.get(service);
		position.catchUpToDelivered();
		if (from.revision() > position.revision()) {
			// The client may come from a node that has read further than this one.
			read(List.of(service));
		}
		// Memory holds the changes after heldAfter, and the current revision's history.
		if (from.revision() > position.heldAfter() || from.revision() == position.revision()) {
			return Optional.empty();
		}
		return Optional.of(reader.from(service, from.revision(), position.revision()));
	}

	/** Stops following the services {@code idle} accepts, and tells the streams. */
	void forget(Predicate<String> idle) {
		followed.keySet().removeIf(service -> {
			boolean forgotten = idle.test(service);
			if (forgotten) {
				streams.forget(service);
			}
			return forgotten;
		});
	}

	/**
	 * Compares the followed positions with the database and reads whatever was missed;
	 * loads afresh a service whose position the database no longer holds.
	 */
	void catchUp() {
		if (followed.isEmpty()) {
			return;
		}
		followed.values().forEach(Followed::catchUpToDelivered);
		Map<String, Position> stored = reader.positions(new ArrayList<>(followed.keySet()));
		List<String> behind = new ArrayList<>();
		stored.forEach((service, there) -> {
			Position here = followed.get(service).position();
			if (there.revision() > here.revision()) {
				behind.add(service);
			}
			else if (there.revision() < here.revision()
					|| (there.history() != Position.UNKNOWN && !there.sameAs(here))) {
				reloadLost(service, here);
			}
		});
		read(behind);
	}

	/**
	 * Reads the changes of followed services up to the revisions notified, unless the
	 * delivering thread has them already (this node's own commits); a notification
	 * without a revision ({@link Notice#UNKNOWN}) is always read.
	 */
	void notified(Map<String, Long> revisions) {
		List<String> behind = new ArrayList<>();
		revisions.forEach((service, revision) -> {
			Followed position = followed.get(service);
			if (position != null) {
				position.catchUpToDelivered();
				if (position.revision() < revision) {
					behind.add(service);
				}
			}
		});
		read(behind);
	}

	/** Reads the changes of these services after what was handed over, if followed. */
	void read(List<String> services) {
		Map<String, Long> positions = new LinkedHashMap<>();
		services.stream().filter(followed::containsKey).forEach(service -> {
			Followed position = followed.get(service);
			position.catchUpToDelivered();
			positions.put(service, position.revision());
		});
		while (!positions.isEmpty()) {
			List<Change> changes = reader.after(positions);
			Map<String, List<Change>> byService = new LinkedHashMap<>();
			changes.forEach(change -> byService.computeIfAbsent(change.service(), s -> new ArrayList<>()).add(change));
			byService.forEach(this::handOver);
			if (changes.size() < ChangeReader.BATCH) {
				return;
			}
			positions.replaceAll((service, revision) -> followed.get(service).revision());
		}
	}

	/** Forgets everything: after a pause it may be stale, and is loaded afresh. */
	void clear() {
		followed.clear();
	}

	/**
	 * Hands over the changes that follow on what was handed over before, in order. The
	 * first from another history than this node's position is checked: that history must
	 * hold this node's position, else it is not the history this node followed.
	 */
	private void handOver(String service, List<Change> changes) {
		Followed position = followed.get(service);
		List<Change> next = new ArrayList<>(changes.size());
		for (Change change : changes) {
			if (change.revision() <= position.revision()) {
				continue;
			}
			if (change.position().history() != position.position().history() && !position.position()
				.sameAs(new Position(position.revision(), reader.history(service, position.revision())))) {
				if (!next.isEmpty()) {
					streams.apply(service, next);
				}
				reloadLost(service, position.position());
				return;
			}
			if (change.revision() != position.revision() + 1) {
				// A revision in between is gone from the log: start over from the state.
				// What came before the gap is handed over first, so that a failed load
				// leaves this position and the delivering thread's in agreement.
				log.info("Change log of {} no longer holds revision {}; reloading its state", service,
						position.revision() + 1);
				if (!next.isEmpty()) {
					streams.apply(service, next);
				}
				// Removed meanwhile, it is followed as empty: its watchers wait on.
				LoadedService loaded = reader.loadOrNone(service);
				position.reset(loaded.position());
				streams.reset(loaded, position.delivered(), false);
				return;
			}
			position.applied(change.position());
			next.add(change);
		}
		if (!next.isEmpty()) {
			streams.apply(service, next);
		}
	}

	/**
	 * The database does not hold {@code lost}, the position this node stands at: a
	 * failover lost the changes up to it. The service is followed afresh from its state,
	 * which replaces the delivering thread's whatever its revision.
	 */
	private void reloadLost(String service, Position lost) {
		log.warn("The database no longer holds revision {} of {} that this node applied (a failover lost it); "
				+ "reloading its state and sending its watchers a snapshot", lost.id(), service);
		LoadedService loaded = reader.loadOrNone(service);
		Followed fresh = new Followed(loaded.position(), settings.recentChanges());
		followed.put(service, fresh);
		streams.reset(loaded, fresh.delivered(), true);
	}

}
