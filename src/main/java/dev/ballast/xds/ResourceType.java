package dev.ballast.xds;

import java.util.Optional;

/**
 * The four resource types of a service, in the order a response is due: a client asks for
 * them in this order, and each names the next.
 */
enum ResourceType {

	LISTENER(Resources.LISTENER, true), ROUTE(Resources.ROUTE, false), CLUSTER(Resources.CLUSTER, true),
	ENDPOINTS(Resources.ENDPOINTS, false);

	private final String url;

	private final boolean fullState;

	ResourceType(String url, boolean fullState) {
		this.url = url;
		this.fullState = fullState;
	}

	String url() {
		return url;
	}

	/**
	 * Whether each response carries every resource subscribed to, so that one left out
	 * does not exist (Listener and Cluster); Route and ClusterLoadAssignment responses
	 * may carry only those that changed.
	 */
	boolean fullState() {
		return fullState;
	}

	static Optional<ResourceType> of(String url) {
		for (ResourceType type : values()) {
			if (type.url.equals(url)) {
				return Optional.of(type);
			}
		}
		return Optional.empty();
	}

}
