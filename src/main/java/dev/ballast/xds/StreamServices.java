package dev.ballast.xds;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.ballast.security.StreamCallers;
import dev.ballast.watch.KeyedCap;
import dev.ballast.watch.StreamPlaces;
import dev.ballast.watch.Subscribers;

/**
 * What every ADS stream of the node shares.
 *
 * @param callers authenticates a stream's token
 * @param places the node's and each token's caps on streams
 * @param nodes each client node id's cap
 * @param subscribers where deliveries, ACKs and NACKs are recorded
 * @param endpoints the followed services' endpoints
 * @param settings {@code ballast.xds.*}
 * @param work runs the streams' sends (virtual threads)
 * @param timer times the first request
 * @param meters the server's counters
 */
record StreamServices(StreamCallers callers, StreamPlaces places, KeyedCap nodes, Subscribers subscribers,
		EndpointFeeds endpoints, XdsSettings settings, Executor work, ScheduledExecutorService timer,
		XdsMeters meters) {
}
