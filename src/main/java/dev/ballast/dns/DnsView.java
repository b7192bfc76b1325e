package dev.ballast.dns;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.instance.BlockingReads;
import dev.ballast.instance.InstanceList;
import dev.ballast.instance.ServiceName;
import org.xbill.DNS.Name;

/**
 * What the responder answers from: the state of each service this node applied from the
 * change log, the one every watch stream and blocking query reads
 * ({@link BlockingReads}), as DNS records. A name asked for is followed from then on, for
 * as long as a watched service, so an answer is as fresh as the node's watch streams; a
 * name the node does not follow yet is answered once its state is loaded.
 *
 * <p>
 * The records of a state are built once and kept until the service's next state, so that
 * the answers written from them are kept too ({@link ServiceRecords#written()}). Only
 * registered services are kept, one entry each.
 */
final class DnsView {

	private final BlockingReads reads;

	private final Name domain;

	private final Map<String, ServiceRecords> rendered = new ConcurrentHashMap<>();

	DnsView(BlockingReads reads, Name domain) {
		this.reads = reads;
		this.domain = domain;
	}

	/**
	 * The service's records, empty when it is not registered; completed at once when this
	 * node follows the service, failed when its state cannot be loaded.
	 */
	CompletableFuture<Optional<ServiceRecords>> records(ServiceName service) {
		return reads.applied(service).thenApply(state -> state.map(this::rendered));
	}

	private ServiceRecords rendered(InstanceList state) {
		ServiceRecords held = rendered.get(state.service());
		if (held != null && held.revision() == state.revision()) {
			return held;
		}
		ServiceRecords records = ServiceRecords.of(state, domain);
		rendered.put(state.service(), records);
		return records;
	}

}
