package ballast.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The watch streams of one run and what went wrong with them. */
final class WatchClient implements SelectorLoop.Owner {

	final WatchOptions options;

	final List<Watch> watches = new ArrayList<>();

	final AtomicInteger ready = new AtomicInteger();

	final AtomicInteger failed = new AtomicInteger();

	final Map<String, AtomicInteger> failureKinds = new ConcurrentHashMap<>();

	final List<String> failureSamples = java.util.Collections.synchronizedList(new ArrayList<>());

	final int capacity;

	volatile boolean stopping;

	final List<SelectorLoop> loops = new ArrayList<>();

	WatchClient(WatchOptions options, int capacity) {
		this.options = options;
		this.capacity = capacity;
	}

	@Override
	public boolean stopping() {
		return stopping;
	}

	@Override
	public void fail(WatchStream stream, String kind, String detail) {
		fail((Watch) stream, kind, detail);
	}

	void fail(Watch watch, String kind, String detail) {
		if (watch.failure != null) {
			return;
		}
		watch.failure = kind;
		failed.incrementAndGet();
		failureKinds.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
		if (failureSamples.size() < 5) {
			failureSamples.add("watcher " + watch.number + ": " + kind + (detail == null ? "" : " " + detail));
		}
	}

}
