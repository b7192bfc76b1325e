package dev.ballast.xds;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;

import dev.ballast.registry.ServiceName;
import dev.ballast.watch.BlockingQueries;

/**
 * The services whose endpoints some ADS stream on this node is subscribed to, each
 * followed on the node's applied state ({@link BlockingQueries#follow}) for as long as
 * one stream is: every change the node applies reaches the streams as soon as it is
 * applied, with no polling, and each state is rendered once per zone view for all of
 * them.
 */
final class EndpointFeeds {

	private final BlockingQueries reads;

	private final Executor fanOut;

	private final Map<String, ServiceEndpoints> services = new HashMap<>();

	EndpointFeeds(BlockingQueries reads, Executor fanOut) {
		this.reads = reads;
		this.fanOut = fanOut;
	}

	/** Subscribes {@code stream} to the service's endpoints, following it if new. */
	synchronized ServiceEndpoints subscribe(ServiceName service, AdsStream stream) {
		ServiceEndpoints endpoints = services.get(service.value());
		if (endpoints == null) {
			endpoints = new ServiceEndpoints(service.value(), fanOut);
			services.put(service.value(), endpoints);
			endpoints.following(reads.follow(service, endpoints::next));
		}
		endpoints.streams().add(stream);
		return endpoints;
	}

	/** Unsubscribes {@code stream}; the last stream gone, the service is not followed. */
	synchronized void unsubscribe(ServiceEndpoints endpoints, AdsStream stream) {
		endpoints.streams().remove(stream);
		if (endpoints.streams().isEmpty() && services.remove(endpoints.service(), endpoints)) {
			endpoints.unfollow();
		}
	}

}
