package dev.ballast.watch;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;

import org.springframework.stereotype.Component;

/**
 * The state of each service the node follows, as the delivering thread last applied it,
 * for reads on other threads (the instance reads during an outage). It holds no other
 * bean, so that the reads can ask it without a cycle through the feed.
 */
@Component
public class AppliedServices {

	private final Map<String, InstanceList> states = new ConcurrentHashMap<>();

	/**
	 * The newest state of {@code service} this node has applied; empty when it does not
	 * follow the service. Safe to call from any thread.
	 */
	public Optional<InstanceList> applied(ServiceName service) {
		return Optional.ofNullable(states.get(service.value()));
	}

	/** The delivering thread applied this state. */
	void publish(InstanceList state) {
		states.put(state.service(), state);
	}

	/** The node no longer follows the service: its state here would only age. */
	void forget(String service) {
		states.remove(service);
	}

	/** The node stopped; what it applied may be stale when it starts again. */
	void clear() {
		states.clear();
	}

}
