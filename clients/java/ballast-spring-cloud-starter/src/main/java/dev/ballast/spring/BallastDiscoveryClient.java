package dev.ballast.spring;

import java.util.List;

import dev.ballast.client.Registry;
import dev.ballast.client.RegistryException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;

/**
 * Spring Cloud's {@link DiscoveryClient} on Ballast: a service's instances are those its
 * watch stream holds now that may receive calls (effective weight above 0), the first
 * call waiting for the first snapshot; the services are Ballast's list of them (a
 * reader's token).
 */
final class BallastDiscoveryClient implements DiscoveryClient {

	private static final Log log = LogFactory.getLog(BallastDiscoveryClient.class);

	private final BallastWatches watches;

	private final Registry registry;

	BallastDiscoveryClient(BallastWatches watches, Registry registry) {
		this.watches = watches;
		this.registry = registry;
	}

	@Override
	public String description() {
		return "Ballast";
	}

	@Override
	public List<ServiceInstance> getInstances(String serviceId) {
		return watches.current(serviceId).block();
	}

	@Override
	public List<String> getServices() {
		try {
			return registry.services();
		}
		catch (RegistryException ex) {
			log.warn("listing Ballast's services failed: " + ex.getMessage());
			return List.of();
		}
	}

}
