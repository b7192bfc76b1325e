package dev.ballast.watch;

import java.util.function.Consumer;

import dev.ballast.registry.InstanceList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader that stays open and is handed each state of one service this node applies (an
 * xDS stream's resources): the state held when it starts following, then every later one,
 * on the delivering thread. Unlike a {@link Waiter}, it is not done after one answer.
 * Compared by identity: two followers of a service with the same consumer are still two.
 */
final class StateFollower {

	private static final Logger log = LoggerFactory.getLogger(StateFollower.class);

	private final String service;

	private final Consumer<InstanceList> next;

	StateFollower(String service, Consumer<InstanceList> next) {
		this.service = service;
		this.next = next;
	}

	String service() {
		return service;
	}

	/**
	 * Hands over {@code state}; a consumer that throws loses this state, never the
	 * delivering thread that serves everyone.
	 */
	void accept(InstanceList state) {
		try {
			next.accept(state);
		}
		catch (RuntimeException ex) {
			log.warn("A follower of {} failed on revision {}", service, state.revision(), ex);
		}
	}

}
