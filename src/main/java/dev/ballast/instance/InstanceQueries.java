package dev.ballast.instance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import dev.ballast.database.ConnectionFailure;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceStore;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.ServiceStore;
import dev.ballast.registry.ServiceSummary;
import dev.ballast.registry.Snapshots;
import dev.ballast.web.NotFoundException;

import org.springframework.stereotype.Service;

/**
 * Reads. Each answer comes from one snapshot of the database, so a revision and the
 * instances returned with it always belong together. When the database cannot be reached,
 * an {@link Answer} comes from the node's last known state instead, marked stale: the
 * newer of what these reads last read and what the node applied from the change log. A
 * service the node knows nothing of is still a failure.
 */
@Service
class InstanceQueries {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final LastKnown lastKnown;

	private final AppliedStates applied;

	private final Snapshots snapshots;

	InstanceQueries(ServiceStore services, InstanceStore instances, LastKnown lastKnown, AppliedStates applied,
			Snapshots snapshots) {
		this.applied = applied;
		this.services = services;
		this.instances = instances;
		this.lastKnown = lastKnown;
		this.snapshots = snapshots;
	}

	Answer<List<ServiceSummary>> services() {
		return read(() -> {
			List<ServiceSummary> read = services.summaries();
			lastKnown.summaries(read);
			return read;
		}, lastKnown::summaries);
	}

	/** {@link InstanceDirectory#services()}, from one snapshot. */
	Answer<List<InstanceDirectory.Service>> catalog() {
		return read(() -> {
			List<ServiceSummary> read = services.summaries();
			lastKnown.summaries(read);
			List<InstanceDirectory.Service> all = new ArrayList<>(registered(read));
			services.removed()
				.forEach(removed -> all.add(new InstanceDirectory.Service(removed.getKey(), 0, removed.getValue())));
			return all;
		}, () -> lastKnown.summaries().map(InstanceQueries::registered));
	}

	private static List<InstanceDirectory.Service> registered(List<ServiceSummary> summaries) {
		return summaries.stream()
			.map(summary -> new InstanceDirectory.Service(summary.name(), summary.instances(), summary.revision()))
			.toList();
	}

	/**
	 * Every service's tags (the union over its instances, sorted); a service whose
	 * instances carry none is not in the map.
	 */
	Answer<Map<String, List<String>>> tags() {
		return read(() -> {
			Map<String, List<String>> read = services.tags();
			lastKnown.tags(read);
			return read;
		}, lastKnown::tags);
	}

	Answer<ServiceView> service(ServiceName name) {
		return read(() -> {
			ServiceView read = ServiceView.of(settings(name), services.counts(name));
			lastKnown.service(read);
			return read;
		}, () -> lastKnown.service(name));
	}

	/**
	 * The service's instances, sorted by id, with the revision they are current at; from
	 * memory, marked stale, while the database is unreachable.
	 */
	Answer<InstanceList> instances(ServiceName name) {
		return read(() -> {
			InstanceList read = snapshots.load(name);
			lastKnown.instances(read);
			return read;
		}, () -> lastKnown.instances(name, applied.applied(name)));
	}

	/**
	 * Like {@link #instances}, for a read that waits for a service to appear: a service
	 * not registered (yet, or any more) is an empty list at the revision its name stands
	 * at ({@link Snapshots#loadOrNone}).
	 */
	Answer<InstanceList> instancesOrNone(ServiceName name) {
		return read(() -> {
			InstanceList read = snapshots.loadOrNone(name);
			lastKnown.instances(read);
			return read;
		}, () -> lastKnown.instances(name, applied.applied(name)));
	}

	/**
	 * One instance; its revision is that of its last change. From memory, marked stale,
	 * while the database is unreachable.
	 */
	Answer<InstanceView> instance(ServiceName name, InstanceId id) {
		Answer<Optional<InstanceView>> found = read(() -> {
			Optional<InstanceView> read = instances.find(name, id).map(InstanceView::of);
			read.ifPresent(lastKnown::instance);
			return read;
		}, () -> lastKnown.instance(name, id, applied.applied(name)));
		return new Answer<>(
				found.value()
					.orElseThrow(() -> new NotFoundException("instance %s of service %s is not registered%s"
						.formatted(id, name, found.stale() ? " (as last known; the database is unreachable)" : ""))),
				found.stale());
	}

	/** {@link InstanceDirectory#remember}. */
	void remember(InstanceList state) {
		lastKnown.instances(state);
	}

	private <T> Answer<T> read(Supplier<T> fromDatabase, Supplier<Optional<T>> fromMemory) {
		try {
			return Answer.fresh(snapshots.read(fromDatabase));
		}
		catch (RuntimeException ex) {
			if (!ConnectionFailure.isCauseOf(ex)) {
				throw ex;
			}
			return fromMemory.get().map(Answer::lastKnown).orElseThrow(() -> ex);
		}
	}

	private ServiceSettings settings(ServiceName name) {
		return services.find(name)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(name)));
	}

}
