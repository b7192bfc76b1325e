package dev.ballast.spring;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;

import dev.ballast.client.InstanceRegistration;
import dev.ballast.client.Registry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.client.ConditionalOnDiscoveryEnabled;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration;
import org.springframework.cloud.commons.util.InetUtils;
import org.springframework.cloud.commons.util.UtilAutoConfiguration;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Ballast for a Spring Boot application: its registration (unless
 * {@code ballast.instance.register=false}), discovery and load balancing of the services
 * it calls. Everything needs {@code ballast.client.token}; without it the application
 * does not start, and says so.
 */
@AutoConfiguration(before = SimpleDiscoveryClientAutoConfiguration.class, after = UtilAutoConfiguration.class)
@ConditionalOnProperty(name = "ballast.client.enabled", matchIfMissing = true)
@ConditionalOnDiscoveryEnabled
@EnableConfigurationProperties({ BallastClientProperties.class, BallastInstanceProperties.class })
@LoadBalancerClients(defaultConfiguration = BallastLoadBalancerConfiguration.class)
public class BallastAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	Registry ballastRegistry(BallastClientProperties client) {
		return Registry.builder(client.getUrl(), http(client))
			.token(token(client))
			.timeout(client.getTimeout())
			.build();
	}

	@Bean
	@ConditionalOnMissingBean
	BallastWatches ballastWatches(BallastClientProperties client, BallastInstanceProperties instance,
			Environment environment, ObjectProvider<InetUtils> inet) {
		String zone = environment.getProperty("spring.cloud.loadbalancer.zone");
		return new BallastWatches(client.getUrl(), http(client), token(client),
				() -> subscriber(client, instance, environment, inet), (zone == null || zone.isBlank()) ? null : zone,
				client.getTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "ballast.instance.register", matchIfMissing = true)
	BallastRegistration ballastRegistration(Registry registry, BallastClientProperties client,
			BallastInstanceProperties instance, Environment environment, ObjectProvider<InetUtils> inet) {
		Duration heartbeat = (instance.getHeartbeatInterval() != null) ? instance.getHeartbeatInterval()
				: instance.getLeaseTtl().dividedBy(3);
		return new BallastRegistration(registry, () -> registration(instance, environment, inet), heartbeat,
				client.getShutdownDrainRamp(), client.getShutdownDrainTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "spring.cloud.discovery.blocking.enabled", matchIfMissing = true)
	BallastDiscoveryClient ballastDiscoveryClient(BallastWatches watches, Registry registry) {
		return new BallastDiscoveryClient(watches, registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnProperty(name = "spring.cloud.discovery.reactive.enabled", matchIfMissing = true)
	BallastReactiveDiscoveryClient ballastReactiveDiscoveryClient(BallastWatches watches, Registry registry) {
		return new BallastReactiveDiscoveryClient(watches, new BallastDiscoveryClient(watches, registry));
	}

	private static HttpClient http(BallastClientProperties client) {
		// HTTP/1.1: each watch stream holds its own connection, and nothing waits for an
		// upgrade that a registry behind a plain proxy would never answer.
		return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(client.getTimeout()).build();
	}

	private static String token(BallastClientProperties client) {
		String token = client.getToken();
		if (token == null || token.isBlank()) {
			throw new BallastConfigurationException("ballast.client.token", "is not set; Ballast answers nothing "
					+ "without a token (a registrant's for this application's service, a reader's for the services "
					+ "it calls): set it, for example from the environment variable BALLAST_CLIENT_TOKEN", null);
		}
		if (!token.strip().chars().allMatch((c) -> c > ' ' && c < 0x7f)) {
			throw new BallastConfigurationException("ballast.client.token",
					"is not a bearer token: it must be printable ASCII without spaces", null);
		}
		return token.strip();
	}

	/** What this application registers as, once its web server listens. */
	static InstanceRegistration registration(BallastInstanceProperties instance, Environment environment,
			ObjectProvider<InetUtils> inet) {
		String service = (instance.getService() != null) ? instance.getService()
				: environment.getProperty("spring.application.name");
		if (service == null || service.isBlank()) {
			throw new BallastConfigurationException("ballast.instance.service",
					"is not set, and neither is spring.application.name", null);
		}
		int port = port(instance, environment);
		String address = address(instance, inet);
		String id = (instance.getId() != null) ? instance.getId() : address + ":" + port;
		String zone = (instance.getZone() != null) ? instance.getZone()
				: environment.getProperty("spring.cloud.loadbalancer.zone");
		try {
			return new InstanceRegistration(service, id, address, port, instance.getWeight(),
					(zone == null || zone.isBlank()) ? null : zone, instance.getMetadata(), instance.getTags(),
					(int) instance.getLeaseTtl().toSeconds());
		}
		catch (IllegalArgumentException ex) {
			throw new BallastConfigurationException(property(ex.getMessage()), ex.getMessage(), ex);
		}
	}

	/**
	 * The property behind a refusal of {@link InstanceRegistration}, which names its
	 * field.
	 */
	private static String property(String refusal) {
		String field = refusal.substring(0, Math.max(refusal.indexOf(' '), 0));
		return switch (field) {
			case "service", "id", "address", "port", "weight", "zone" -> "ballast.instance." + field;
			case "leaseTtlSeconds" -> "ballast.instance.lease-ttl";
			case "metadata", "metadata." -> "ballast.instance.metadata";
			default -> refusal.contains("tags") ? "ballast.instance.tags"
					: refusal.startsWith("metadata") ? "ballast.instance.metadata" : "ballast.instance.*";
		};
	}

	private static int port(BallastInstanceProperties instance, Environment environment) {
		if (instance.getPort() != null) {
			return instance.getPort();
		}
		Integer port = environment.getProperty("local.server.port", Integer.class);
		if (port == null) {
			throw new BallastConfigurationException("ballast.instance.port",
					"is not set, and the application has no web server whose port it could register", null);
		}
		return port;
	}

	private static String address(BallastInstanceProperties instance, ObjectProvider<InetUtils> inet) {
		if (instance.getAddress() != null) {
			return instance.getAddress();
		}
		InetUtils utils = inet.getIfAvailable();
		if (utils == null) {
			throw new BallastConfigurationException("ballast.instance.address", "is not set", null);
		}
		return utils.findFirstNonLoopbackHostInfo().getIpAddress();
	}

	/**
	 * {@code <application>-<instance id>}: unique per instance, as every subscriber's
	 * acknowledgements must be its own.
	 */
	private static String subscriber(BallastClientProperties client, BallastInstanceProperties instance,
			Environment environment, ObjectProvider<InetUtils> inet) {
		if (client.getSubscriber() != null) {
			return client.getSubscriber();
		}
		String application = environment.getProperty("spring.application.name", "application");
		String id = (instance.getId() != null) ? instance.getId() : address(instance, inet) + ":" + environment
			.getProperty("local.server.port", (instance.getPort() != null) ? String.valueOf(instance.getPort()) : "0");
		String name = (application + "-" + id).replaceAll("[^A-Za-z0-9._:-]", "-").toLowerCase(Locale.ROOT);
		return (name.length() > 128) ? name.substring(0, 128) : name;
	}

}
