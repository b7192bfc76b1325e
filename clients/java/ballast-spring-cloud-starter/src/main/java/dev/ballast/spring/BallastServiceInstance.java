package dev.ballast.spring;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ballast.client.WatchedInstance;

import org.springframework.cloud.client.ServiceInstance;

/**
 * A Ballast instance as Spring Cloud sees it. Its weight stays typed
 * ({@link #effectiveWeight()}); the metadata holds the instance's own labels and its
 * {@code zone}, never a weight.
 */
public final class BallastServiceInstance implements ServiceInstance {

	private final WatchedInstance instance;

	private final Map<String, String> metadata;

	BallastServiceInstance(WatchedInstance instance) {
		this.instance = instance;
		Map<String, String> labels = new LinkedHashMap<>(instance.metadata());
		if (instance.zone() != null) {
			labels.put("zone", instance.zone());
		}
		this.metadata = Map.copyOf(labels);
	}

	/** The instance as the watch last applied it. */
	public WatchedInstance instance() {
		return instance;
	}

	/**
	 * The weight the caller's balancer uses, 1 to 10000 (an instance at 0 is never
	 * listed).
	 */
	public int effectiveWeight() {
		return instance.effectiveWeight();
	}

	@Override
	public String getInstanceId() {
		return instance.id();
	}

	@Override
	public String getServiceId() {
		return instance.service();
	}

	@Override
	public String getHost() {
		return instance.address();
	}

	@Override
	public int getPort() {
		return instance.port();
	}

	@Override
	public boolean isSecure() {
		return "true".equals(instance.metadata().get("secure"));
	}

	@Override
	public URI getUri() {
		String host = instance.address().contains(":") ? "[" + instance.address() + "]" : instance.address();
		return URI.create(getScheme() + "://" + host + ":" + instance.port());
	}

	@Override
	public String getScheme() {
		return isSecure() ? "https" : "http";
	}

	@Override
	public Map<String, String> getMetadata() {
		return metadata;
	}

	@Override
	public String toString() {
		return instance.service() + "/" + instance.id() + "@" + instance.address() + ":" + instance.port() + " weight "
				+ instance.effectiveWeight();
	}

}
