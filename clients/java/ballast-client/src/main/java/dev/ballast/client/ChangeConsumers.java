package dev.ballast.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * Whoever hears of a change a {@link ServiceWatch} applied, in this order: the balancer
 * of the service, the caller's listener, then (with a subscriber name) the registry, by
 * an acknowledgement. A failing listener is logged and does not undo the change.
 */
final class ChangeConsumers {

	private static final Logger LOG = System.getLogger(ServiceWatch.class.getName());

	/** Empty unless the watch was built balanced. */
	private final Map<String, SmoothWeightedBalancer> balancers = new LinkedHashMap<>();

	private final Consumer<WatchedService> listener;

	/** {@code null} for an anonymous watch, which never acknowledges. */
	private final Acknowledgements acknowledgements;

	ChangeConsumers(List<String> names, boolean balanced, Consumer<WatchedService> listener, HttpClient client,
			RegistryRequests requests, String subscriber, ScheduledExecutorService scheduler, Duration ackInterval) {
		if (balanced) {
			names.forEach((name) -> this.balancers.put(name, new SmoothWeightedBalancer()));
		}
		this.listener = listener;
		this.acknowledgements = (subscriber != null) ? new Acknowledgements(
				(service, revision) -> acknowledge(client, requests, service, revision), scheduler, ackInterval) : null;
	}

	/** Whether the watch keeps a balancer per service. */
	boolean balanced() {
		return !balancers.isEmpty();
	}

	SmoothWeightedBalancer balancer(String service) {
		return balancers.get(service);
	}

	void applied(WatchedService service) {
		SmoothWeightedBalancer balancer = balancers.get(service.name());
		if (balancer != null) {
			balancer.update(service.instances());
		}
		try {
			listener.accept(service);
		}
		catch (RuntimeException ex) {
			LOG.log(Level.WARNING, "the change listener failed on revision " + service.revision() + " of "
					+ service.name() + "; the change stays applied", ex);
		}
		if (acknowledgements != null) {
			acknowledgements.applied(service.name(), service.revision());
		}
	}

	private static CompletableFuture<?> acknowledge(HttpClient client, RegistryRequests requests, String service,
			long revision) {
		return client.sendAsync(requests.ack(service, revision), HttpResponse.BodyHandlers.discarding())
			.thenAccept((response) -> {
				if (response.statusCode() / 100 != 2) {
					throw new IllegalStateException("the registry answered " + response.statusCode());
				}
			});
	}

}
