/**
 * The xDS server: an ADS endpoint (gRPC, state of the world) from which proxyless gRPC
 * clients ({@code xds:///<service>}) and Envoy read each service as a Listener, a
 * RouteConfiguration, a Cluster and its ClusterLoadAssignment. Endpoints come from the
 * state the watch module applied, followed while a stream wants them and rendered once
 * per zone view; their weights are laid out in localities so that grpc-java, which
 * ignores endpoint weights, and Envoy route exactly the share Ballast means
 * ({@link dev.ballast.xds.LocalityGroups}). Streams authenticate with the REST API's
 * tokens and count against the same caps; a client's ACK confirms drains. Off unless
 * {@code ballast.xds.port} is set. See {@code docs/xds.md}.
 */
@ApplicationModule(allowedDependencies = { "registry", "security", "watch", "web", "weight" })
package dev.ballast.xds;

import org.springframework.modulith.ApplicationModule;
