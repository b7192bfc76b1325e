package dev.ballast.instance;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.ballast.registry.InstanceList;
import dev.ballast.registry.ServiceName;

/**
 * What every read that must stay fresh (this module's blocking reads, Consul's, DNS, xDS)
 * needs from the node's following of committed changes: the blocking-query parameters, a
 * polling subscriber's progress, the state the node applied, and a wait for a state newer
 * than the one read, capped in one place. The module that follows the change log (watch)
 * implements it, so that its dependency on this module is not turned around.
 */
public interface BlockingReads {

	/**
	 * Parses a blocking query's {@code index}, {@code wait} and {@code subscriber}, each
	 * {@code null} when absent.
	 * @throws dev.ballast.web.BadParameterException naming the first that does not parse
	 */
	BlockingQuery query(String index, String wait, String subscriber);

	/** A polling subscriber passed back {@code revision}: it has applied it. */
	void acknowledged(ServiceName service, String subscriber, long revision);

	/** {@code revision} was answered to a polling subscriber. */
	void delivered(ServiceName service, String subscriber, long revision);

	/**
	 * Completes {@code wait} with the first state of its service this node applies that
	 * it accepts, or with the unchanged answer once its timeout is up. No thread waits.
	 * @throws dev.ballast.web.OverloadedException when the node serves its maximum of
	 * watchers
	 */
	void await(BlockingWait wait);

	/**
	 * Completes {@code wait} with the first catalog this node reads after a change that
	 * passed its revision, or with the unchanged answer once its timeout is up. No thread
	 * waits; tokenless waits count against a smaller share of the cap.
	 * @throws dev.ballast.web.OverloadedException when the node serves its maximum of
	 * watchers, or of tokenless ones
	 */
	void awaitCatalog(CatalogWait wait);

	/**
	 * The state of {@code service} this node applied from the change log, the node
	 * following it from now on while it is asked for (as long as a watched service):
	 * completed at once when the node follows it already, otherwise once it is loaded,
	 * never on a thread that delivers to watchers. Empty when the service is not
	 * registered; failed when it cannot be loaded (the database is unreachable). A load
	 * is shared by every query that asks meanwhile: bound a copy of it, never the future
	 * itself.
	 */
	CompletableFuture<Optional<InstanceList>> applied(ServiceName service);

	/**
	 * For a reader that stays open (an xDS stream's resources): hands {@code next} the
	 * state of {@code service} this node holds, then every state it applies after it, in
	 * order, until the returned handle is run; the service stays followed meanwhile. A
	 * service that is not registered is followed as an empty one. {@code next} runs on
	 * the thread that delivers to every watcher: it must hand the state on and return at
	 * once. A service this node cannot load yet (the database is away) is handed over
	 * once it can. The follower counts against no cap: the caller's own streams do.
	 * @return closes the following; running it again does nothing
	 */
	Runnable follow(ServiceName service, Consumer<InstanceList> next);

}
