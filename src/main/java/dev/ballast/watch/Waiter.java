package dev.ballast.watch;

import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.ballast.instance.InstanceList;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * A blocking query waiting on this node for a service to reach a state it has not seen
 * yet. No thread waits: the feed answers it when a change makes {@code ready} true, and
 * the request's own timeout answers it otherwise.
 *
 * @param service the service it waits on
 * @param ready whether a state answers the query
 * @param answer completes {@code result} from a state
 * @param result the pending response
 */
record Waiter(String service, Predicate<InstanceList> ready, Consumer<InstanceList> answer, DeferredResult<?> result) {

	/** Answers if {@code state} is ready; returns whether the waiter is done. */
	boolean offer(InstanceList state) {
		if (result.isSetOrExpired()) {
			return true;
		}
		if (!ready.test(state)) {
			return false;
		}
		answer.accept(state);
		return true;
	}

}
