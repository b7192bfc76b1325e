package dev.ballast.watch;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import dev.ballast.registry.Answer;
import dev.ballast.web.OverloadedException;

/**
 * The blocking queries on the whole catalog waiting on this node. Touched only on the
 * reader thread of {@link ChangeFollower}: after each batch of change notifications and
 * each catch-up it reads the catalog's revision once and, when that passed some waiter's,
 * the tags once, and answers every waiter it passed from that one read. A wait needs no
 * service followed: the notifications of every service reach the reader.
 */
final class CatalogWaits {

	private final CatalogReads reads;

	private final Set<CatalogWait> waiting = Collections.newSetFromMap(new IdentityHashMap<>());

	CatalogWaits(CatalogReads reads) {
		this.reads = reads;
	}

	void add(CatalogWait wait) {
		waiting.add(wait);
		// A change between the caller's read and now would otherwise go unseen.
		recheck();
	}

	void remove(CatalogWait wait) {
		waiting.remove(wait);
	}

	/** Answers the waiters whose revision the catalog passed. */
	void recheck() {
		waiting.removeIf(wait -> wait.result().isSetOrExpired());
		if (waiting.isEmpty()) {
			return;
		}
		Catalog catalog;
		try {
			Answer<List<Catalog.Service>> services = reads.services();
			long revision = Catalog.revisionOf(services);
			if (waiting.stream().noneMatch(wait -> revision > wait.after())) {
				return;
			}
			catalog = new Catalog(services, reads.tags());
		}
		catch (RuntimeException ex) {
			// The database is away: the waiters are answered when their time is up.
			return;
		}
		long revision = catalog.revision();
		List<CatalogWait> passed = waiting.stream().filter(wait -> revision > wait.after()).toList();
		passed.forEach(waiting::remove);
		passed.forEach(wait -> wait.answer().accept(catalog));
	}

	/** The node is stopping: every waiter is told to retry elsewhere. */
	void stop() {
		waiting.forEach(wait -> wait.result()
			.setErrorResult(new OverloadedException("the node is stopping; retry on another node")));
		waiting.clear();
	}

	/** Forgets every waiter: after a pause the node starts afresh. */
	void clear() {
		waiting.clear();
	}

}
