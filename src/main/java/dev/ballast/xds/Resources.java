package dev.ballast.xds;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.List;
import java.util.Optional;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.UInt32Value;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import io.envoyproxy.envoy.config.cluster.v3.Cluster;
import io.envoyproxy.envoy.config.core.v3.Address;
import io.envoyproxy.envoy.config.core.v3.AggregatedConfigSource;
import io.envoyproxy.envoy.config.core.v3.ApiVersion;
import io.envoyproxy.envoy.config.core.v3.ConfigSource;
import io.envoyproxy.envoy.config.core.v3.HealthStatus;
import io.envoyproxy.envoy.config.core.v3.Locality;
import io.envoyproxy.envoy.config.core.v3.SocketAddress;
import io.envoyproxy.envoy.config.endpoint.v3.ClusterLoadAssignment;
import io.envoyproxy.envoy.config.endpoint.v3.Endpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LbEndpoint;
import io.envoyproxy.envoy.config.endpoint.v3.LocalityLbEndpoints;
import io.envoyproxy.envoy.config.listener.v3.ApiListener;
import io.envoyproxy.envoy.config.listener.v3.Listener;
import io.envoyproxy.envoy.config.route.v3.Route;
import io.envoyproxy.envoy.config.route.v3.RouteAction;
import io.envoyproxy.envoy.config.route.v3.RouteConfiguration;
import io.envoyproxy.envoy.config.route.v3.RouteMatch;
import io.envoyproxy.envoy.config.route.v3.VirtualHost;
import io.envoyproxy.envoy.extensions.filters.http.router.v3.Router;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter;
import io.envoyproxy.envoy.extensions.filters.network.http_connection_manager.v3.Rds;
import io.envoyproxy.envoy.type.v3.Percent;

/**
 * The four resources of a service, each named after it, as {@code xds:///<service>}
 * resolves in grpc-java: the Listener (an {@code api_listener} whose
 * HttpConnectionManager takes its routes from RDS and ends with the router filter) → the
 * RouteConfiguration (every request to the cluster) → the Cluster (EDS over ADS,
 * {@code ROUND_ROBIN}, which grpc-java turns into {@code wrr_locality} over
 * {@code round_robin}) → the ClusterLoadAssignment, whose weights {@link LocalityGroups}
 * lays out.
 */
final class Resources {

	static final String LISTENER = "type.googleapis.com/envoy.config.listener.v3.Listener";

	static final String ROUTE = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";

	static final String CLUSTER = "type.googleapis.com/envoy.config.cluster.v3.Cluster";

	static final String ENDPOINTS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

	/** The sub-zone that names a weight class: {@code weight-300}. */
	static final String WEIGHT_CLASS = "weight-";

	private static final ConfigSource ADS = ConfigSource.newBuilder()
		.setAds(AggregatedConfigSource.getDefaultInstance())
		.setResourceApiVersion(ApiVersion.V3)
		.build();

	private Resources() {
	}

	static Listener listener(String service) {
		HttpConnectionManager manager = HttpConnectionManager.newBuilder()
			.setStatPrefix(service)
			.setRds(Rds.newBuilder().setConfigSource(ADS).setRouteConfigName(service))
			.addHttpFilters(HttpFilter.newBuilder()
				.setName("envoy.filters.http.router")
				.setTypedConfig(Any.pack(Router.getDefaultInstance())))
			.build();
		return Listener.newBuilder()
			.setName(service)
			.setApiListener(ApiListener.newBuilder().setApiListener(Any.pack(manager)))
			.build();
	}

	static RouteConfiguration route(String service) {
		return RouteConfiguration.newBuilder()
			.setName(service)
			.addVirtualHosts(VirtualHost.newBuilder()
				.setName(service)
				.addDomains("*")
				.addRoutes(Route.newBuilder()
					.setMatch(RouteMatch.newBuilder().setPrefix(""))
					.setRoute(RouteAction.newBuilder().setCluster(service))))
			.build();
	}

	/**
	 * The cluster. Envoy weighs localities as grpc-java does
	 * ({@code locality_weighted_lb_config}), and never enters panic mode (a panic
	 * threshold of 0): it is never sent an unhealthy endpoint, and spreading traffic to
	 * every host is what a drain must not do.
	 */
	static Cluster cluster(String service) {
		return Cluster.newBuilder()
			.setName(service)
			.setType(Cluster.DiscoveryType.EDS)
			.setEdsClusterConfig(Cluster.EdsClusterConfig.newBuilder().setEdsConfig(ADS).setServiceName(service))
			.setLbPolicy(Cluster.LbPolicy.ROUND_ROBIN)
			.setConnectTimeout(Duration.newBuilder().setSeconds(1))
			.setCommonLbConfig(Cluster.CommonLbConfig.newBuilder()
				.setHealthyPanicThreshold(Percent.newBuilder().setValue(0))
				.setLocalityWeightedLbConfig(Cluster.CommonLbConfig.LocalityWeightedLbConfig.getDefaultInstance()))
			.build();
	}

	/**
	 * The endpoints of {@code view} (a service's instances, flat or as one zone sees
	 * them) that may get traffic: routable ones registered with an IP address. One with a
	 * host name is left out, as Envoy refuses a name in EDS (NACKing the whole response)
	 * and grpc-java would resolve it on the thread that reads the response.
	 */
	static ClusterLoadAssignment assignment(InstanceList view) {
		List<Addressed> endpoints = view.instances()
			.stream()
			.filter(InstanceView::routable)
			.flatMap(instance -> socketAddress(instance).map(address -> new Addressed(instance, address)).stream())
			.toList();
		ClusterLoadAssignment.Builder assignment = ClusterLoadAssignment.newBuilder().setClusterName(view.service());
		for (LocalityGroups.Group<Addressed> group : LocalityGroups.of(endpoints, e -> e.instance().zone(),
				e -> e.instance().effectiveWeight().value())) {
			LocalityLbEndpoints.Builder locality = LocalityLbEndpoints.newBuilder()
				.setLocality(Locality.newBuilder()
					.setZone(group.zone() == null ? "" : group.zone())
					.setSubZone(WEIGHT_CLASS + group.weight()))
				.setLoadBalancingWeight(UInt32Value.of((int) group.localityWeight()))
				.setPriority(0);
			for (Addressed endpoint : group.endpoints()) {
				locality.addLbEndpoints(LbEndpoint.newBuilder()
					.setEndpoint(
							Endpoint.newBuilder().setAddress(Address.newBuilder().setSocketAddress(endpoint.address())))
					.setHealthStatus(HealthStatus.HEALTHY)
					.setLoadBalancingWeight(UInt32Value.of(group.weight())));
			}
			assignment.addEndpoints(locality);
		}
		return assignment.build();
	}

	/** Builds one of each resource, so that their classes and descriptors are loaded. */
	static void warmUp() {
		String name = "warm-up";
		List.of(Any.pack(listener(name)), Any.pack(route(name)), Any.pack(cluster(name)),
				Any.pack(assignment(new InstanceList(name, 0, List.of(), null))));
	}

	/** An IP literal's socket address; empty for a host name or a scoped IPv6 address. */
	private static Optional<SocketAddress> socketAddress(InstanceView instance) {
		String address = instance.address();
		String bare = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1)
				: address;
		try {
			// Literals only: ofLiteral never asks a resolver.
			String literal = (bare.indexOf(':') >= 0 ? Inet6Address.ofLiteral(bare) : Inet4Address.ofLiteral(bare))
				.getHostAddress();
			if (literal.indexOf('%') >= 0) {
				return Optional.empty();
			}
			return Optional.of(SocketAddress.newBuilder()
				.setAddress(literal)
				.setPortValue(instance.port().value())
				.setProtocol(SocketAddress.Protocol.TCP)
				.build());
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

	private record Addressed(InstanceView instance, SocketAddress address) {
	}

}
