package dev.ballast.watch;

import java.util.function.Consumer;

import org.springframework.web.context.request.async.DeferredResult;

/**
 * A blocking query on the whole catalog that has nothing new to answer yet.
 *
 * @param after the catalog's revision ({@link Catalog#revision()}) the client has
 * @param tokenless whether the caller sent no token: such waits have a smaller share of
 * the node's cap, so that they cannot use up what callers with a token need
 * @param answer completes {@code result} from a catalog whose revision passed
 * {@code after}; runs on no thread that delivers to watchers, and reads nothing
 * @param unchanged completes {@code result} with the catalog it started from, when its
 * time is up
 * @param result the pending response; its timeout is the query's
 */
public record CatalogWait(long after, boolean tokenless, Consumer<Catalog> answer, Runnable unchanged,
		DeferredResult<?> result) {
}
