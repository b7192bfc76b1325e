package dev.ballast.watch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ballast.registry.Answer;
import dev.ballast.registry.ServiceStore;
import dev.ballast.registry.ServiceSummary;
import dev.ballast.registry.Snapshots;

import org.springframework.stereotype.Component;

/**
 * Catalog-wide reads (the service list, the catalog, every service's tags), each from one
 * snapshot of the database, and the node's memory of what they last read: while the
 * database is unreachable they answer with it, marked stale. The blocking queries on the
 * catalog ({@link CatalogWaits}) read through here too, so their reads keep that memory
 * fresh as well.
 */
@Component
public class CatalogReads {

	private final ServiceStore services;

	private final Snapshots snapshots;

	private volatile List<ServiceSummary> summaries;

	private volatile Map<String, List<String>> tags;

	CatalogReads(ServiceStore services, Snapshots snapshots) {
		this.services = services;
		this.snapshots = snapshots;
	}

	/** Every registered service, sorted by name, with its counts and revision. */
	public Answer<List<ServiceSummary>> summaries() {
		return snapshots.answer(() -> {
			List<ServiceSummary> read = services.summaries();
			summaries = read;
			return read;
		}, () -> Optional.ofNullable(summaries));
	}

	/**
	 * Every registered service, sorted by name, with its revision, then every removed
	 * name that is not registered again, with no instances and its last revision: so the
	 * sum of the revisions ({@link Catalog#revision()}) rises with every change anywhere,
	 * a removal included. Stale when it is this node's last known list (of registered
	 * services only).
	 */
	public Answer<List<Catalog.Service>> services() {
		return snapshots.answer(() -> {
			List<ServiceSummary> read = services.summaries();
			summaries = read;
			List<Catalog.Service> all = new ArrayList<>(registered(read));
			services.removed()
				.forEach(removed -> all.add(new Catalog.Service(removed.getKey(), 0, removed.getValue())));
			return all;
		}, () -> Optional.ofNullable(summaries).map(CatalogReads::registered));
	}

	private static List<Catalog.Service> registered(List<ServiceSummary> summaries) {
		return summaries.stream()
			.map(summary -> new Catalog.Service(summary.name(), summary.instances(), summary.revision()))
			.toList();
	}

	/**
	 * Every service's tags, the union over its instances, once each, sorted by code point
	 * (services whose instances carry none are left out); read apart from
	 * {@link #services()}, whose callers mostly need no tags.
	 */
	public Answer<Map<String, List<String>>> tags() {
		return snapshots.answer(() -> {
			Map<String, List<String>> read = services.tags();
			tags = read;
			return read;
		}, () -> Optional.ofNullable(tags));
	}

}
