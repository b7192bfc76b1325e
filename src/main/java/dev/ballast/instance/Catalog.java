package dev.ballast.instance;

import java.util.List;
import java.util.Map;

/**
 * Every registered service with its revision, and their tags, as one catalog-wide answer
 * reads them (Consul's {@code /v1/catalog/services}).
 *
 * @param services every registered service and removed name
 * ({@link InstanceDirectory#services()})
 * @param tags their tags ({@link InstanceDirectory#tags()}), read after the services: at
 * worst newer than {@link #revision()}, which the next blocking query then answers at
 * once; never older
 */
public record Catalog(Answer<List<InstanceDirectory.Service>> services, Answer<Map<String, List<String>>> tags) {

	/**
	 * The sum of every service's revision, a removed one's included (its last): it rises
	 * with every change anywhere, a removal too.
	 */
	public long revision() {
		return revisionOf(services);
	}

	/** {@link #revision()} of a list of services read without their tags. */
	public static long revisionOf(Answer<List<InstanceDirectory.Service>> services) {
		return services.value().stream().mapToLong(InstanceDirectory.Service::revision).sum();
	}

}
