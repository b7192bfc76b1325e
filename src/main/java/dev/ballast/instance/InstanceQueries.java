package dev.ballast.instance;

import java.util.Optional;

import dev.ballast.registry.Answer;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceStore;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceCounts;
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
 * newer of what these reads last read and what the node applied from the change log
 * ({@link AppliedServices} keeps both). A service the node knows nothing of is still a
 * failure.
 */
@Service
class InstanceQueries {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final AppliedServices applied;

	private final Snapshots snapshots;

	InstanceQueries(ServiceStore services, InstanceStore instances, AppliedServices applied, Snapshots snapshots) {
		this.applied = applied;
		this.services = services;
		this.instances = instances;
		this.snapshots = snapshots;
	}

	Answer<ServiceView> service(ServiceName name) {
		return snapshots.answer(() -> {
			ServiceSettings settings = settings(name);
			ServiceCounts counts = services.counts(name);
			applied.read(settings, counts);
			return ServiceView.of(settings, counts);
		}, () -> applied.lastKnownSummary(name).map(known -> ServiceView.of(known.settings(), known.counts())));
	}

	/**
	 * The service's instances, sorted by id, with the revision they are current at; from
	 * memory, marked stale, while the database is unreachable.
	 */
	Answer<InstanceList> instances(ServiceName name) {
		return snapshots.answer(() -> {
			InstanceList read = snapshots.load(name);
			applied.read(read);
			return read;
		}, () -> applied.lastKnown(name));
	}

	/**
	 * Like {@link #instances}, for a read that waits for a service to appear: a service
	 * not registered (yet, or any more) is an empty list at the revision its name stands
	 * at ({@link Snapshots#loadOrNone}).
	 */
	Answer<InstanceList> instancesOrNone(ServiceName name) {
		return snapshots.answer(() -> {
			InstanceList read = snapshots.loadOrNone(name);
			applied.read(read);
			return read;
		}, () -> applied.lastKnown(name));
	}

	/**
	 * One instance; its revision is that of its last change. From memory, marked stale,
	 * while the database is unreachable.
	 */
	Answer<InstanceView> instance(ServiceName name, InstanceId id) {
		Answer<Optional<InstanceView>> found = snapshots.answer(() -> {
			Optional<InstanceView> read = instances.find(name, id).map(InstanceView::of);
			read.ifPresent(applied::read);
			return read;
		}, () -> applied.lastKnown(name, id));
		return new Answer<>(
				found.value()
					.orElseThrow(() -> new NotFoundException("instance %s of service %s is not registered%s"
						.formatted(id, name, found.stale() ? " (as last known; the database is unreachable)" : ""))),
				found.stale());
	}

	/** {@link InstanceDirectory#remember}. */
	void remember(InstanceList state) {
		applied.read(state);
	}

	private ServiceSettings settings(ServiceName name) {
		return services.find(name)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(name)));
	}

}
