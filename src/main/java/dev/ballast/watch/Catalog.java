package dev.ballast.watch;

import java.util.List;
import java.util.Map;

import dev.ballast.registry.Answer;

/**
 * Every registered service with its revision, and their tags, as one catalog-wide answer
 * reads them (Consul's {@code /v1/catalog/services}).
 *
 * @param services every registered service and removed name
 * ({@link CatalogReads#services()})
 * @param tags their tags ({@link CatalogReads#tags()}), read after the services: at worst
 * newer than {@link #revision()}, which the next blocking query then answers at once;
 * never older
 */
public record Catalog(Answer<List<Service>> services, Answer<Map<String, List<String>>> tags) {

	/**
	 * The sum of every service's revision, a removed one's included (its last): it rises
	 * with every change anywhere, a removal too.
	 */
	public long revision() {
		return revisionOf(services);
	}

	/** {@link #revision()} of a list of services read without their tags. */
	public static long revisionOf(Answer<List<Service>> services) {
		return services.value().stream().mapToLong(Service::revision).sum();
	}

	/**
	 * One service of the catalog.
	 *
	 * @param name the service
	 * @param instances how many instances it has
	 * @param revision its revision
	 */
	public record Service(String name, int instances, long revision) {
	}

}
