import java.net.URI;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** The command line and environment of {@link WatchLatency}. */
record WatchOptions(URI url, int watchers, int rate, int warmupSeconds, int seconds, int instances, int openRate,
		int selectors, long serverPid, long postgresPid, int drainSeconds, int openTimeoutSeconds,
		double goalP99Millis, double goalHeapBytes, String service, String authorization) {

	static WatchOptions parse(String[] args) {
		String tag = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
		Map<String, String> values = new HashMap<>(Map.ofEntries(Map.entry("--url", "http://127.0.0.1:8080"),
				Map.entry("--watchers", "1000"), Map.entry("--rate", "20"), Map.entry("--warmup", "10"),
				Map.entry("--seconds", "30"), Map.entry("--instances", "4"), Map.entry("--open-rate", "500"),
				Map.entry("--selectors", "2"), Map.entry("--server-pid", "0"),
				Map.entry("--postgres-pid", "0"), Map.entry("--drain", "15"),
				Map.entry("--open-timeout", "60"), Map.entry("--goal-p99-ms", "auto"),
				Map.entry("--goal-heap-kb", "20"), Map.entry("--service", "watch-" + tag)));
		for (int i = 0; i < args.length; i++) {
			if (args[i].equals("--help") || args[i].equals("-h")) {
				usage(0, null);
			}
			if (!values.containsKey(args[i]) || i + 1 >= args.length) {
				usage(2, "unknown option or missing value: " + args[i]);
			}
			values.put(args[i], args[i + 1]);
			i++;
		}
		try {
			int watchers = positive(values, "--watchers");
			String goal = values.get("--goal-p99-ms");
			// The goals: p99 < 10 ms at 1,000 watchers, < 50 ms at 10,000.
			double goalP99 = goal.equals("auto") ? (watchers <= 1000 ? 10 : 50) : Double.parseDouble(goal);
			WatchOptions options = new WatchOptions(URI.create(values.get("--url").replaceAll("/+$", "")), watchers,
					positive(values, "--rate"), nonNegative(values, "--warmup"), positive(values, "--seconds"),
					positive(values, "--instances"), positive(values, "--open-rate"),
					positive(values, "--selectors"), Long.parseLong(values.get("--server-pid")),
					Long.parseLong(values.get("--postgres-pid")),
					positive(values, "--drain"), positive(values, "--open-timeout"), goalP99,
					Double.parseDouble(values.get("--goal-heap-kb")) * 1024, values.get("--service"),
					authorizationFromEnvironment());
			if (!options.service.matches("[a-z0-9][a-z0-9-]{0,62}")) {
				usage(2, "--service must be a lower-case service name; got " + options.service);
			}
			if (!"http".equals(options.url.getScheme()) || options.url.getPort() <= 0) {
				usage(2, "--url must be http://host:port; got " + options.url);
			}
			return options;
		}
		catch (IllegalArgumentException ex) {
			usage(2, ex.getMessage());
			return null;
		}
	}

	private static int positive(Map<String, String> values, String name) {
		int value = nonNegative(values, name);
		if (value == 0) {
			throw new IllegalArgumentException(name + " must be greater than 0");
		}
		return value;
	}

	private static int nonNegative(Map<String, String> values, String name) {
		try {
			int value = Integer.parseInt(values.get(name));
			if (value < 0) {
				throw new IllegalArgumentException(name + " must not be negative; got " + value);
			}
			return value;
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(name + " must be an integer; got " + values.get(name));
		}
	}

	private static void usage(int status, String error) {
		if (error != null) {
			System.err.println("error: " + error);
		}
		(status == 0 ? System.out : System.err).println("""
				usage: java bench/WatchLatency.java [options]
				  --url URL            Ballast base URL (default http://127.0.0.1:8080)
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
				                       admin, as the writer PATCHes weights; bench/watchers.sh sets it""");
		System.exit(status);
	}

	/**
	 * From the environment rather than an option, which ps would show. Checked here:
	 * it goes into the raw watch requests as it is, where a CR or LF would split them.
	 */
	private static String authorizationFromEnvironment() {
		String token = System.getenv("BALLAST_TOKEN");
		if (token == null || !token.matches("[!-~]{1,4096}")) {
			usage(2, "BALLAST_TOKEN must hold the bearer token to send (printable ASCII, no spaces)");
		}
		return "Bearer " + token;
	}

}
