package dev.ballast.instance;

import java.util.Optional;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;

/**
 * The state of each service this node has applied from the change log. Reads ask it while
 * the database is unreachable and answer with the newer of it and what they read
 * themselves. The module that follows the change log (watch) implements it, so that its
 * dependency on this module is not turned around.
 */
public interface AppliedStates {

	/**
	 * The newest state of {@code service} this node has applied; empty when it does not
	 * follow the service. Safe to call from any thread.
	 */
	Optional<InstanceList> applied(ServiceName service);

}
