package dev.ballast.watch;

import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * A blocking read that has nothing new to answer yet.
 *
 * @param service the service it waits on
 * @param subscriber the polling subscriber, counted as connected while it waits; or
 * {@code null}
 * @param ready whether an applied state answers it
 * @param answer completes {@code result} from a state that is ready
 * @param unchanged completes {@code result} with the state it started from, when its time
 * is up
 * @param result the pending response; its timeout is the query's
 */
public record BlockingWait(ServiceName service, String subscriber, Predicate<InstanceList> ready,
		Consumer<InstanceList> answer, Runnable unchanged, DeferredResult<?> result) {

	/**
	 * Ready once the service's revision is another than that of {@code seen}, the state
	 * the query found unchanged. Usually a later one; an earlier one when a failover lost
	 * the last commits and this node loaded the database's state afresh: the client is
	 * answered at once with it rather than left waiting for a revision that is no longer
	 * coming.
	 */
	public static Predicate<InstanceList> movedFrom(InstanceList seen) {
		return state -> state.revision() != seen.revision();
	}

}
