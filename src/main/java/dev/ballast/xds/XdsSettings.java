package dev.ballast.xds;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code ballast.xds.*}.
 *
 * @param port the port the ADS server listens on; off when unset, and 0 picks a free port
 * (logged)
 * @param address the address it binds to
 * @param sslBundle the Spring Boot SSL bundle ({@code spring.ssl.bundle.*}) whose key and
 * certificate it serves TLS with; plaintext when unset
 * @param maxStreamsPerNodeId ADS streams one client node id may hold open on this node
 * (grpc-java opens one per target it dials); besides, every stream counts against
 * {@code ballast.watch.max-watchers} and its token's
 * {@code ballast.watch.max-streams-per-token}
 * @param maxResourcesPerStream resource names one stream may subscribe to, per type
 * @param firstRequestTimeout how long a new stream may take to send its first request
 * @param maxConnectionAge a connection is asked to go (GOAWAY) after about this long, so
 * that clients spread again over the nodes; they keep their configuration meanwhile
 * @param maxConnectionAgeGrace how long a connection asked to go may still finish
 * @param keepalive how often an idle connection is pinged, so that a dead client is seen
 * @param keepaliveTimeout how long a ping may go unanswered before the connection is
 * closed
 * @param shutdownTimeout how long stopping waits for the streams to close
 */
@ConfigurationProperties("ballast.xds")
record XdsSettings(Integer port, @DefaultValue("127.0.0.1") String address, String sslBundle,
		@DefaultValue("100") int maxStreamsPerNodeId, @DefaultValue("64") int maxResourcesPerStream,
		@DefaultValue("10s") Duration firstRequestTimeout, @DefaultValue("30m") Duration maxConnectionAge,
		@DefaultValue("1m") Duration maxConnectionAgeGrace, @DefaultValue("30s") Duration keepalive,
		@DefaultValue("10s") Duration keepaliveTimeout, @DefaultValue("5s") Duration shutdownTimeout) {

	boolean enabled() {
		return port != null;
	}

}
