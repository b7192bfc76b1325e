package dev.ballast.watch;

import dev.ballast.registry.InstanceList;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * A blocking query waiting on this node for a service to reach a state it has not seen
 * yet. No thread waits: the delivering thread answers it when a change makes it ready,
 * and the request's own timeout answers it otherwise.
 *
 * @param query what it waits for, and how it is answered
 */
record Waiter(BlockingWait query) {

	String service() {
		return query.service().value();
	}

	DeferredResult<?> result() {
		return query.result();
	}

	/** Answers with {@code state}, ready or not: the node is stopping. */
	void answer(InstanceList state) {
		query.answer().accept(state);
	}

	/** Answers if {@code state} is ready; returns whether the waiter is done. */
	boolean offer(InstanceList state) {
		if (query.result().isSetOrExpired()) {
			return true;
		}
		if (!query.ready().test(state)) {
			return false;
		}
		query.answer().accept(state);
		return true;
	}

}
