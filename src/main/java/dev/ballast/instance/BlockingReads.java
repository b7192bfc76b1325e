package dev.ballast.instance;

/**
 * What a blocking read of this module needs from the node's following of committed
 * changes: the blocking-query parameters, a polling subscriber's progress, and a wait for
 * a state newer than the one read. The module that follows the change log (watch)
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

}
