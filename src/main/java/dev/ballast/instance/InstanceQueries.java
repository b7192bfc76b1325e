package dev.ballast.instance;

import java.util.Optional;

import dev.ballast.registry.Answer;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceStore;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ServiceSettings;
import dev.ballast.registry.ServiceStore;
import dev.ballast.registry.Snapshots;
import dev.ballast.watch.AppliedServices;
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

	private final AppliedServices applied;

	private final Snapshots snapshots;

	InstanceQueries(ServiceStore services, InstanceStore instances, LastKnown lastKnown, AppliedServices applied,
			Snapshots snapshots) {
		this.applied = applied;
		this.services = services;
		this.instances = instances;
		this.lastKnown = lastKnown;
		this.snapshots = snapshots;
	}

	Answer<ServiceView> service(ServiceName name) {
		return snapshots.answer(() -> {
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
		return snapshots.answer(() -> {
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
		return snapshots.answer(() -> {
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
		Answer<Optional<InstanceView>> found = snapshots.answer(() -> {
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

	private ServiceSettings settings(ServiceName name) {
		return services.find(name)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(name)));
	}

}
