package dev.ballast.dns;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ZoneView;
import dev.ballast.watch.BlockingQueries;
import org.xbill.DNS.Name;

/**
 * What the responder answers from: the state of each service this node applied from the
 * change log, the one every watch stream and blocking query reads
 * ({@link BlockingQueries}), as DNS records. A name asked for is followed from then on,
 * for as long as a watched service, so an answer is as fresh as the node's watch streams;
 * a name the node does not follow yet is answered once its state is loaded.
 *
 * <p>
 * The records of a state are built once and kept until the service's next state, so that
 * the answers written from them are kept too ({@link ServiceRecords#written()}). Only
 * registered services are kept, one entry each, with the records of each zone asked for
 * among the zones its instances are in: a name that asks for any other zone is answered
 * the flat records, which is that zone's view ({@link ZoneView}), so that names made up
 * by clients leave nothing behind.
 */
final class DnsView {

	private final BlockingQueries reads;

	private final Name domain;

	private final Map<String, Rendered> rendered = new ConcurrentHashMap<>();

	DnsView(BlockingQueries reads, Name domain) {
		this.reads = reads;
		this.domain = domain;
	}

	/**
	 * The service's records as a balancer in {@code zone} sees them ({@code null}: the
	 * flat view), empty when it is not registered; completed at once when this node
	 * follows the service, failed when its state cannot be loaded.
	 */
	CompletableFuture<Optional<ServiceRecords>> records(ServiceName service, String zone) {
		return reads.applied(service).thenApply(state -> state.map(s -> rendered(s).of(zone)));
	}

	private Rendered rendered(InstanceList state) {
		Rendered held = rendered.get(state.service());
		// The same applied state, not only the same revision: after a failover that lost
		// the last commits, the node applies the database's state afresh, possibly at a
		// revision it had applied before with other instances.
		if (held != null && held.state == state) {
			return held;
		}
		Rendered records = new Rendered(state);
		rendered.put(state.service(), records);
		return records;
	}

	/** One state of a service: its flat records, and those of the zones asked for. */
	private final class Rendered {

		private final InstanceList state;

		private final ServiceRecords flat;

		/** The zones of its instances, by their names in lower case. */
		private final Map<String, List<String>> zoneNames;

		private final Map<String, ServiceRecords> zones = new ConcurrentHashMap<>();

		Rendered(InstanceList state) {
			this.state = state;
			this.flat = ServiceRecords.of(state, state, domain);
			this.zoneNames = state.instances()
				.stream()
				.map(InstanceView::zone)
				.filter(Objects::nonNull)
				.distinct()
				.collect(Collectors.groupingBy(zone -> zone.toLowerCase(Locale.ROOT)));
		}

		ServiceRecords of(String asked) {
			String zone = asked == null || state.locality() == null ? null : zoneOf(asked);
			if (zone == null) {
				return flat;
			}
			return zones.computeIfAbsent(zone, z -> ServiceRecords.of(state, ZoneView.of(state, z), domain));
		}

		/**
		 * The instances' zone that a name asks for: the one spelt as asked, else the one
		 * that differs only in case (DNS names compare without case, and a resolver on
		 * the way may change it); {@code null} when none or several are.
		 */
		private String zoneOf(String asked) {
			List<String> alike = zoneNames.getOrDefault(asked.toLowerCase(Locale.ROOT), List.of());
			if (alike.contains(asked)) {
				return asked;
			}
			return alike.size() == 1 ? alike.getFirst() : null;
		}

	}

}
