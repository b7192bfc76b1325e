package dev.ballast.instance;

import java.util.List;

import dev.ballast.web.NotFoundException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reads. Each answer comes from one snapshot of the database, so a revision and the
 * instances returned with it always belong together.
 */
@Service
@Transactional(readOnly = true, isolation = Isolation.REPEATABLE_READ)
public class InstanceQueries {

	private final ServiceStore services;

	private final InstanceStore instances;

	InstanceQueries(ServiceStore services, InstanceStore instances) {
		this.services = services;
		this.instances = instances;
	}

	List<ServiceSummary> services() {
		return services.summaries();
	}

	ServiceView service(ServiceName name) {
		ServiceSettings settings = settings(name);
		return ServiceView.of(settings, services.counts(name));
	}

	/** The service's instances, sorted by id, with the revision they are current at. */
	public InstanceList instances(ServiceName name) {
		ServiceSettings settings = settings(name);
		return new InstanceList(name.value(), settings.revision(),
				instances.list(name).stream().map(InstanceView::of).toList());
	}

	/** One instance; its revision is that of its last change. */
	public InstanceView instance(ServiceName name, InstanceId id) {
		return instances.find(name, id)
			.map(InstanceView::of)
			.orElseThrow(
					() -> new NotFoundException("instance %s of service %s is not registered".formatted(id, name)));
	}

	private ServiceSettings settings(ServiceName name) {
		return services.find(name)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(name)));
	}

}
