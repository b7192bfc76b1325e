package dev.ballast.instance;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;

import org.springframework.stereotype.Component;

/**
 * The last committed state this module's reads read, per service: with the state the node
 * applied from the change log, what reads answer with while the database is unreachable.
 * Bounded: the least recently used services are forgotten first. A state only ever
 * replaces one at an older revision, so a slow read cannot take a service back.
 */
@Component
class LastKnown {

	private final Map<String, Known> services;

	LastKnown(LastKnownSettings settings) {
		int max = settings.maxServices();
		this.services = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
				return size() > max;
			}

		};
	}

	synchronized void service(ServiceView read) {
		Known known = known(read.name());
		if (known.view == null || known.view.revision() <= read.revision()) {
			known.view = read;
		}
	}

	synchronized Optional<ServiceView> service(ServiceName name) {
		return Optional.ofNullable(services.get(name.value())).map(known -> known.view);
	}

	synchronized void instances(InstanceList read) {
		Known known = known(read.service());
		if (known.list == null || known.list.revision() <= read.revision()) {
			known.list = read;
			// The list supersedes single reads it is at least as new as.
			known.instances.values().removeIf(instance -> instance.revision() <= read.revision());
		}
	}

	synchronized Optional<InstanceList> instances(ServiceName name) {
		return Optional.ofNullable(services.get(name.value())).map(known -> known.list);
	}

	synchronized void instance(InstanceView read) {
		Known known = known(read.service());
		if (known.list != null && known.list.revision() >= read.revision()) {
			return;
		}
		known.instances.merge(read.id(), read, (held, newer) -> held.revision() > newer.revision() ? held : newer);
	}

	/**
	 * The instance as last known: from the later of the service's list and the instance's
	 * own last read. Empty inside the optional when the list is the later and does not
	 * hold it; empty outside when this node knows neither.
	 */
	synchronized Optional<Optional<InstanceView>> instance(ServiceName name, InstanceId id) {
		Known known = services.get(name.value());
		if (known == null) {
			return Optional.empty();
		}
		InstanceView single = known.instances.get(id.value());
		if (single != null) {
			return Optional.of(Optional.of(single));
		}
		if (known.list == null) {
			return Optional.empty();
		}
		return Optional.of(known.list.instances().stream().filter(i -> i.id().equals(id.value())).findFirst());
	}

	/** The newer of the service's list as last read and {@code applied}. */
	Optional<InstanceList> instances(ServiceName name, Optional<InstanceList> applied) {
		Optional<InstanceList> read = instances(name);
		if (read.isEmpty() || applied.isEmpty()) {
			return read.isPresent() ? read : applied;
		}
		return applied.get().revision() > read.get().revision() ? applied : read;
	}

	/**
	 * The instance as last known, or as in {@code applied} when that is newer than what
	 * was read; empty inside when the newer one does not hold it.
	 */
	synchronized Optional<Optional<InstanceView>> instance(ServiceName name, InstanceId id,
			Optional<InstanceList> applied) {
		Optional<Optional<InstanceView>> read = instance(name, id);
		if (applied.isEmpty()) {
			return read;
		}
		// What was read is current at least at the revision of the list it came from, or
		// of the instance's own last change when it was read by itself.
		long readAt = Math.max(read.flatMap(found -> found).map(InstanceView::revision).orElse(-1L),
				instances(name).map(InstanceList::revision).orElse(-1L));
		if (applied.get().revision() <= readAt) {
			return read;
		}
		return Optional.of(applied.get().instances().stream().filter(i -> i.id().equals(id.value())).findFirst());
	}

	private Known known(String service) {
		return services.computeIfAbsent(service, name -> new Known());
	}

	/** What is known of one service; guarded by the enclosing instance's lock. */
	private static final class Known {

		private ServiceView view;

		private InstanceList list;

		private final Map<String, InstanceView> instances = new HashMap<>();

	}

}
