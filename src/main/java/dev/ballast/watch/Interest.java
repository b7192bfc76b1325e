package dev.ballast.watch;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How many streams and blocking queries on this node want each service followed, and
 * since when none has. The reader forgets a service only once nobody has wanted it for
 * the idle timeout, so a poller that asks again right after its answer does not make the
 * node load the service afresh each time.
 *
 * <p>
 * A stream or query is counted before its request reaches the reader and uncounted after
 * it is done; as the reader handles requests in order, a service it finds idle has no
 * request for it in flight, and the next one loads it again.
 */
final class Interest {

	private final Map<String, Wanted> services = new ConcurrentHashMap<>();

	private final LongSupplier nanoTime;

	Interest(LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
	}

	/** A stream or blocking query wants {@code service} followed. */
	void acquire(String service) {
		services.compute(service, (name, wanted) -> new Wanted(wanted == null ? 1 : wanted.count() + 1, 0));
	}

	/** A stream or blocking query of {@code service} is done. */
	void release(String service) {
		services.computeIfPresent(service,
				(name, wanted) -> new Wanted(Math.max(0, wanted.count() - 1), nanoTime.getAsLong()));
	}

	/**
	 * Whether nobody has wanted {@code service} since {@code cutoff} (a
	 * {@link System#nanoTime()}); if so it is forgotten here too, atomically with the
	 * check.
	 */
	boolean idleSince(String service, long cutoff) {
		boolean[] idle = { true };
		services.computeIfPresent(service, (name, wanted) -> {
			idle[0] = wanted.count() == 0 && wanted.lastReleased() - cutoff < 0;
			return idle[0] ? null : wanted;
		});
		return idle[0];
	}

	/**
	 * @param count streams and queries that want the service
	 * @param lastReleased when the count last went down
	 */
	private record Wanted(int count, long lastReleased) {
	}

}
