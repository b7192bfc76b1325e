package dev.ballast.database;

import java.util.Set;

/**
 * Something that follows a PostgreSQL notification channel, so that a change committed by
 * one node reaches every node at once. The node's one listening connection delivers the
 * notifications; after every (re)connect it calls {@link #connected()}, because
 * notifications sent while it was away are lost.
 */
public interface Notified {

	/** The channel, a plain identifier. */
	String channel();

	/** Notifications arrived; their payloads, without duplicates. */
	void notified(Set<String> payloads);

	/** The listener (re)connected: anything may have changed meanwhile. */
	void connected();

}
