package dev.ballast.watch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import dev.ballast.instance.InstanceList;
import dev.ballast.web.NotFoundException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services this node follows, and how far: loads a service's state once, then reads
 * its change log and hands the changes to {@link Streams} in revision order and without a
 * gap, starting over from the state when the log no longer holds a revision. What the
 * delivering thread applied from this node's own commits is not read again. Touched only
 * on the reader thread of {@link ChangeFollower}.
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
			InstanceList state;
			boolean registered = true;
			try {
				state = reader.load(service);
			}
			catch (NotFoundException ex) {
				if (!unregistered) {
					throw ex;
				}
				// Read again for the revision the name stands at; registered meanwhile,
				// it is only forgotten sooner, and loaded again when asked for.
				state = reader.loadOrNone(service);
				registered = false;
			}
			position = new Followed(state.revision(), settings.recentChanges());
			followed.put(service, position);
			if (!registered) {
				position.markUnregistered();
			}
			streams.reset(state, position.delivered());
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
	 * The changes after {@code from} read from the log, when the delivering thread will
	 * no longer hold them in memory; empty when it will, or when {@code from} is not a
	 * position of this service (then the stream starts with a snapshot).
	 */
	Optional<List<Change>> missed(String service, long from) {
		Followed position = followed.get(service);
		position.catchUpToDelivered();
		if (from > position.revision()) {
			// The client may come from a node that has read further than this one.
			read(List.of(service));
		}
		if (from < 0 || from >= position.heldAfter()) {
			return Optional.empty();
		}
		return Optional.of(reader.between(service, from, position.revision()));
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
	 * Compares the followed revisions with the database and reads whatever was missed.
	 */
	void catchUp() {
		if (followed.isEmpty()) {
			return;
		}
		followed.values().forEach(Followed::catchUpToDelivered);
		Map<String, Long> stored = reader.revisions(new ArrayList<>(followed.keySet()));
		read(stored.entrySet()
			.stream()
			.filter(entry -> entry.getValue() > followed.get(entry.getKey()).revision())
			.map(Map.Entry::getKey)
			.toList());
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

	/** Hands over the changes that follow on what was handed over before, in order. */
	private void handOver(String service, List<Change> changes) {
		Followed position = followed.get(service);
		List<Change> next = new ArrayList<>(changes.size());
		for (Change change : changes) {
			if (change.revision() <= position.revision()) {
				continue;
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
				InstanceList state = reader.loadOrNone(service);
				position.reset(state.revision());
				streams.reset(state, position.delivered());
				return;
			}
			position.applied(change.revision());
			next.add(change);
		}
		if (!next.isEmpty()) {
			streams.apply(service, next);
		}
	}

}
