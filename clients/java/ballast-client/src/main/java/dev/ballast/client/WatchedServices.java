package dev.ballast.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The current state of every watched service, changed by one writer (the watch's thread)
 * and read by any thread. Each change publishes a new immutable {@link WatchedService}
 * and hands it to the change listener.
 *
 * <p>
 * Changes below a service's revision are skipped, so an event seen again after a
 * reconnect changes nothing; a snapshot always replaces the whole service, whatever its
 * revision. A change at the revision the service is at is applied: a zone's stream sends
 * every instance whose weight in the zone's view moved at one revision as events of that
 * revision, and applying one of them again changes nothing, as the state at that revision
 * already holds it.
 */
final class WatchedServices {

	private static final Logger LOG = System.getLogger(WatchedServices.class.getName());

	private final List<String> names;

	private final Map<String, WatchedService> current = new ConcurrentHashMap<>();

	private final Consumer<WatchedService> onChange;

	WatchedServices(List<String> names, Consumer<WatchedService> onChange) {
		this.names = List.copyOf(names);
		this.onChange = onChange;
	}

	List<String> names() {
		return names;
	}

	boolean watches(String name) {
		return names.contains(name);
	}

	/** Empty until the first change of the service arrived. */
	Optional<WatchedService> get(String name) {
		return Optional.ofNullable(current.get(name));
	}

	void replace(WatchedService snapshot) {
		publish(snapshot);
	}

	void upsert(WatchedInstance instance) {
		WatchedService service = current.getOrDefault(instance.service(),
				new WatchedService(instance.service(), 0, List.of()));
		if (notOlder(service, instance.revision())) {
			publish(service.with(instance));
		}
	}

	void remove(String name, String id, long revision) {
		WatchedService service = current.getOrDefault(name, new WatchedService(name, 0, List.of()));
		if (notOlder(service, revision)) {
			publish(service.without(id, revision));
		}
	}

	/**
	 * Records a revision that changed no instance, such as a settings change. A service
	 * with no state yet stays without: a revision with no instances would claim, and
	 * acknowledge, a state this client never saw.
	 */
	void moveTo(String name, long revision) {
		WatchedService service = current.get(name);
		if (service != null && revision > service.revision()) {
			publish(service.at(revision));
		}
	}

	private static boolean notOlder(WatchedService service, long revision) {
		if (revision >= service.revision()) {
			return true;
		}
		LOG.log(Level.DEBUG, () -> "skipping revision " + revision + " of " + service.name() + ": revision "
				+ service.revision() + " is already applied");
		return false;
	}

	private void publish(WatchedService service) {
		current.put(service.name(), service);
		onChange.accept(service);
	}

}
