package dev.ballast.watch;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceCounts;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;

import org.springframework.stereotype.Component;

/**
 * What this node knows of each service's state, for reads on any thread: as the
 * delivering thread last applied it (the services the node follows), and as the reads
 * last read it from the database. While the database is unreachable the reads answer with
 * the newer of the two ({@link #lastKnown(ServiceName)}). What was read is bounded: the
 * least recently used services are forgotten first; a state read only ever replaces one
 * at an older revision, so a slow read cannot take a service back. It holds no other
 * bean, so that the reads can ask it without a cycle through the feed.
 */
@Component
public class AppliedServices {

	private final Map<String, InstanceList> states = new ConcurrentHashMap<>();

	/** What the reads last read, least recently used first; guarded by this. */
	private final Map<String, Read> read;

	AppliedServices(LastKnownSettings settings) {
		int max = settings.maxServices();
		this.read = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Read> eldest) {
				return size() > max;
			}

		};
	}

	/**
	 * The newest state of {@code service} this node has applied; empty when it does not
	 * follow the service. Safe to call from any thread.
	 */
	public Optional<InstanceList> applied(ServiceName service) {
		return Optional.ofNullable(states.get(service.value()));
	}

	/** The delivering thread applied this state. */
	void publish(InstanceList state) {
		states.put(state.service(), state);
	}

	/** The node no longer follows the service: its state here would only age. */
	void forget(String service) {
		states.remove(service);
	}

	/** The node stopped; what it applied may be stale when it starts again. */
	void clear() {
		states.clear();
	}

	/** A read read a service's settings and counts. */
	public synchronized void read(ServiceSettings settings, ServiceCounts counts) {
		Read known = known(settings.name().value());
		if (known.settings == null || known.settings.revision() <= settings.revision()) {
			known.settings = settings;
			known.counts = counts;
		}
	}

	/** A service's settings and counts as last read. */
	public synchronized Optional<Summary> lastKnownSummary(ServiceName name) {
		return Optional.ofNullable(read.get(name.value()))
			.filter(known -> known.settings != null)
			.map(known -> new Summary(known.settings, known.counts));
	}

	/** A read read a service's instances. */
	public synchronized void read(InstanceList list) {
		Read known = known(list.service());
		if (known.list == null || known.list.revision() <= list.revision()) {
			known.list = list;
			// The list supersedes single reads it is at least as new as.
			known.instances.values().removeIf(instance -> instance.revision() <= list.revision());
		}
	}

	/** A read read one instance. */
	public synchronized void read(InstanceView instance) {
		Read known = known(instance.service());
		if (known.list != null && known.list.revision() >= instance.revision()) {
			return;
		}
		known.instances.merge(instance.id(), instance,
				(held, newer) -> held.revision() > newer.revision() ? held : newer);
	}

	/**
	 * The newer of the service's instances as last read and as this node applied them.
	 */
	public Optional<InstanceList> lastKnown(ServiceName name) {
		Optional<InstanceList> applied = applied(name);
		Optional<InstanceList> list = readList(name);
		if (list.isEmpty() || applied.isEmpty()) {
			return list.isPresent() ? list : applied;
		}
		return applied.get().revision() > list.get().revision() ? applied : list;
	}

	/**
	 * The instance as last known: from the later of the service's list as read and the
	 * instance's own last read, or as this node applied it when that is newer than what
	 * was read. Empty inside the optional when the newer one does not hold it; empty
	 * outside when this node knows neither.
	 */
	public synchronized Optional<Optional<InstanceView>> lastKnown(ServiceName name, InstanceId id) {
		Optional<Optional<InstanceView>> found = readInstance(name, id);
		Optional<InstanceList> applied = applied(name);
		if (applied.isEmpty()) {
			return found;
		}
		// What was read is current at least at the revision of the list it came from, or
		// of the instance's own last change when it was read by itself.
		long readAt = Math.max(found.flatMap(instance -> instance).map(InstanceView::revision).orElse(-1L),
				readList(name).map(InstanceList::revision).orElse(-1L));
		if (applied.get().revision() <= readAt) {
			return found;
		}
		return Optional.of(applied.get().instances().stream().filter(i -> i.id().equals(id.value())).findFirst());
	}

	private synchronized Optional<InstanceList> readList(ServiceName name) {
		return Optional.ofNullable(read.get(name.value())).map(known -> known.list);
	}

	private Optional<Optional<InstanceView>> readInstance(ServiceName name, InstanceId id) {
		Read known = read.get(name.value());
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

	private Read known(String service) {
		return read.computeIfAbsent(service, name -> new Read());
	}

	/**
	 * A service's settings and counts as a read last read them.
	 *
	 * @param settings its settings
	 * @param counts its counts
	 */
	public record Summary(ServiceSettings settings, ServiceCounts counts) {
	}

	/**
	 * What the reads last read of one service; guarded by the enclosing instance's lock.
	 */
	private static final class Read {

		private ServiceSettings settings;

		private ServiceCounts counts;

		private InstanceList list;

		private final Map<String, InstanceView> instances = new HashMap<>();

	}

}
