package ballast.bench;

import java.net.URI;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** The command line and environment of {@link WatchLatency}. */
record WatchOptions(URI url, URI writeUrl, int watchers, int rate, int warmupSeconds, int seconds, int instances, int openRate,
		int selectors, long serverPid, long postgresPid, int drainSeconds, int openTimeoutSeconds,
		double goalP99Millis, double goalHeapBytes, String service, String authorization) {

	static WatchOptions parse(String[] args) {
		String tag = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
		BenchArgs values = BenchArgs.parse(args, 0,
				BenchArgs.defaults("--url", "http://127.0.0.1:8080", "--write-url", "", "--watchers", "1000", "--rate", "20", "--warmup",
						"10", "--seconds", "30", "--instances", "4", "--open-rate", "500", "--selectors", "2",
						"--server-pid", "0", "--postgres-pid", "0", "--drain", "15", "--open-timeout", "60",
						"--goal-p99-ms", "auto", "--goal-heap-kb", "20", "--service", "watch-" + tag),
				USAGE);
		int watchers = values.positive("--watchers");
		// The goals: p99 < 10 ms at 1,000 watchers, < 50 ms at 10,000.
		double goalP99 = values.get("--goal-p99-ms").equals("auto") ? (watchers <= 1000 ? 10 : 50)
				: values.number("--goal-p99-ms");
		URI url = values.url("--url");
		// Writes go to the watched node unless another node is named: cross-node delivery.
		URI writeUrl = values.get("--write-url").isEmpty() ? url : values.url("--write-url");
		return new WatchOptions(url, writeUrl, watchers, values.positive("--rate"), values.nonNegative("--warmup"),
				values.positive("--seconds"), values.positive("--instances"), values.positive("--open-rate"),
				values.positive("--selectors"), values.longValue("--server-pid"), values.longValue("--postgres-pid"),
				values.positive("--drain"), values.positive("--open-timeout"), goalP99,
				values.number("--goal-heap-kb") * 1024,
				values.matching("--service", "[a-z0-9][a-z0-9-]{0,62}", "a lower-case service name"),
				BenchArgs.authorization());
	}

	static final String USAGE = """
			usage: java bench/src/ballast/bench/WatchLatency.java [options]
			  --url URL            Ballast base URL the watchers connect to (default http://127.0.0.1:8080)
			  --write-url URL      node the registrations and weight changes go to (default: --url);
			                       another node of the same database measures cross-node delivery
			  --watchers N         event streams to open on the service (default 1000)
			  --open-rate N        streams opened per second at most (default 500)
			  --selectors N        client selector threads (default 2)
			  --rate N             weight changes per second (default 20)
			  --warmup S           seconds of changes first, not measured (default 10)
			  --seconds S          measured seconds of changes (default 30)
			  --instances N        instances whose weights the writer changes in turn (default 4)
			  --drain S            seconds to wait for the last events after the last write (default 15)
			  --open-timeout S     seconds, after the last connect, for every snapshot to arrive (default 60)
			  --server-pid PID     the server's JVM: heap per watcher (jcmd GC.run + /actuator/prometheus),
			                       RSS, CPU and busiest threads in the measured window (default: not measured)
			  --postgres-pid PID   the node's PostgreSQL postmaster, to count its CPU too (default: not counted)
			  --goal-p99-ms MS     p99 goal to report against (default 10 up to 1000 watchers, else 50)
			  --goal-heap-kb KB    heap-per-watcher goal to report against, KiB (default 20)
			  --service NAME       service to create and watch (default watch-<random>)
			environment:
			  BALLAST_TOKEN        bearer token sent on every call and stream (required): operator or
			                       admin, as the writer PATCHes weights; bench/watchers.sh sets it""";

}
