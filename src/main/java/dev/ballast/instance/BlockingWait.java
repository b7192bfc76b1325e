package dev.ballast.instance;

import java.util.function.Consumer;
import java.util.function.Predicate;

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
}
