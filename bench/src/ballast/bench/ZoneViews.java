package ballast.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cost of zone views (docs/locality.md) against the flat view on one node: one service
 * of --zones zones of --per-zone instances under a locality policy, watched in turn by
 * --watchers flat streams ({@code /v1/services/{s}/watch}) and by as many zone streams
 * ({@code ?zone=z<i>}, the same number in each zone), alternating, --rounds times. In each
 * phase the watchers are opened (at most --open-rate a second, each until its first
 * snapshot), then one writer changes a weight --rate times a second, --warmup unmeasured
 * and --seconds measured seconds, round robin over the zones.
 *
 * <p>
 * A weight change of an instance in zone z is one upsert event to every flat stream, and a
 * new view of zone z to zone z's streams only: the other zones' views do not change (a
 * whole zone keeps its own traffic), and a zone's stream sends only when its weights
 * change. So each phase reports what a change costs the node, all its processes
 * (server_ms_per_change: CPU of the JVM and PostgreSQL over the measured window ÷ changes),
 * the events it sent per change, the CPU per event sent, and write → event latency (from
 * the write's acknowledgement to the event that shows it, over every watcher that must
 * receive the change; 0 when the event came first). A zone stream's event shows a change
 * when its revision is at least the change's: a view is sent for the last revision of what
 * the node applied at once. Revisions are read from each event's data
 * ({@code "revision":N}), never from its id.
 *
 * <p>
 * Every watcher must receive what it is owed: a flat stream every revision once and in
 * order, a zone stream a view at or after each change of its zone, and never more views
 * than its zone had changes. Exit status 0 when every phase held that, 1 otherwise, 2 on
 * bad arguments. Run with {@code java bench/src/ballast/bench/ZoneViews.java --help}; {@code bench/zones.sh}
 * starts a node and runs it.
 */
public final class ZoneViews {

	static final Pattern REVISION = Pattern.compile("\"revision\":(\\d+)");

	private ZoneViews() {
	}

	public static void main(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 0,
				BenchArgs.defaults("--url", "http://127.0.0.1:8080", "--pids", "", "--zones", "10", "--per-zone", "3",
						"--watchers", "10000", "--rate", "20", "--warmup", "5", "--seconds", "20", "--rounds", "2",
						"--cap", "20", "--open-rate", "1000", "--open-timeout", "120", "--drain", "30", "--selectors",
						"2"),
				"""
						Zone views against the flat view: --zones zones of --per-zone instances (cap --cap%), watched by
						--watchers flat streams, then by --watchers zone streams (an equal number per zone), alternating
						--rounds times; in each phase --rate weight changes a second, --warmup unmeasured and --seconds
						measured seconds. --pids: the server's processes (the JVM and PostgreSQL's postmaster,
						comma-separated) whose CPU is counted. Needs BALLAST_TOKEN.""");
		ZoneViews.Run run = new Run(options);
		run.prepare();
		Map<String, List<String>> results = new LinkedHashMap<>();
		boolean ok = true;
		for (int round = 1; round <= options.positive("--rounds"); round++) {
			for (String phase : List.of("flat", "zones")) {
				Phase measured = run.phase(phase, round);
				ok &= measured.ok;
				results.computeIfAbsent(phase, p -> new ArrayList<>()).add(measured.summary);
			}
		}
		System.out.println("summary (per round):");
		results.forEach((phase, lines) -> lines.forEach(line -> System.out.println("  " + phase + ": " + line)));
		System.out.println(ok ? "zone-views PASS" : "zone-views FAILED");
		System.exit(ok ? 0 : 1);
	}

	/** One run's service, options and writer. */
	static final class Run {

		final URI base;

		final String service = "zones-" + Long.toString(System.nanoTime() % 1_000_000_000L, 36);

		final String headers = "Authorization: " + BenchArgs.authorization() + "\r\n";

		final Http1 writer;

		final int zones;

		final int perZone;

		final BenchArgs options;

		final long[] pids;

		/** Writes so far, over every phase: each round of an instance has a weight of its own. */
		int written;

		Run(BenchArgs options) {
			this.options = options;
			this.base = options.url("--url");
			this.writer = new Http1(base);
			this.zones = options.positive("--zones");
			this.perZone = options.positive("--per-zone");
			this.pids = options.pids("--pids");
		}

		void prepare() throws IOException {
			for (int z = 0; z < zones; z++) {
				for (int k = 0; k < perZone; k++) {
					// The longest lease the node accepts: a lapse would be a change of its own.
					exchange("PUT", "/v1/services/%s/instances/%s".formatted(service, instance(z, k)),
							"{\"address\":\"10.%d.%d.1\",\"port\":8080,\"weight\":10000,\"zone\":\"z%d\",\"leaseTtlSeconds\":300}"
								.formatted(z, k, z),
							201);
				}
			}
			// Lowered weights take capacity away: the benchmark measures views, not the guard.
			exchange("PATCH", "/v1/services/" + service,
					"{\"maxUnroutable\":\"100%%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":%d}}"
						.formatted(options.nonNegative("--cap")),
					200);
			System.out.printf(Locale.ROOT, "service %s: %d zones of %d instances, cross-zone cap %d%%, at %s%n", service,
					zones, perZone, options.nonNegative("--cap"), base);
		}

		static String instance(int zone, int k) {
			return "i-%d-%d".formatted(zone, k);
		}

		String exchange(String method, String path, String body, int expected) throws IOException {
			Http1.Response response = writer.exchange(method, path,
					headers + (body == null ? "" : "Content-Type: application/json\r\n"), body);
			if (response.status() != expected) {
				throw new IOException("%s %s answered %d: %s".formatted(method, path, response.status(), response.body()));
			}
			return response.body();
		}

		void renew() throws IOException {
			for (int z = 0; z < zones; z++) {
				for (int k = 0; k < perZone; k++) {
					exchange("POST", "/v1/services/%s/instances/%s/heartbeat".formatted(service, instance(z, k)), null,
							200);
				}
			}
		}

		Phase phase(String name, int round) throws Exception {
			boolean zoned = name.equals("zones");
			int watchers = options.positive("--watchers");
			Readers readers = new Readers(options.positive("--selectors"));
			List<Watcher> opened = new ArrayList<>();
			try {
				if (!open(readers, opened, watchers, zoned)) {
					return new Phase(false, "watchers did not open");
				}
				renew();
				return window(name, round, opened, zoned);
			}
			finally {
				readers.stop();
				// Let the node see the connections go before the next phase opens its own.
				Thread.sleep(2000);
			}
		}

		private boolean open(Readers readers, List<Watcher> watchers, int count, boolean zoned)
				throws IOException, InterruptedException {
			CountDownLatch ready = new CountDownLatch(count);
			readers.start();
			long period = TimeUnit.SECONDS.toNanos(1) / options.positive("--open-rate");
			long start = System.nanoTime();
			InetSocketAddress address = new InetSocketAddress(base.getHost(), base.getPort());
			for (int i = 0; i < count; i++) {
				Compare.parkUntil(start + i * period);
				int zone = zoned ? i % zones : -1;
				String path = "/v1/services/" + service + "/watch" + (zoned ? "?zone=z" + zone : "");
				byte[] request = ("GET %s HTTP/1.1\r\nHost: %s\r\n%sAccept: text/event-stream\r\n\r\n")
					.formatted(path, base.getAuthority(), headers)
					.getBytes(StandardCharsets.US_ASCII);
				SocketChannel channel = SocketChannel.open();
				channel.configureBlocking(false);
				channel.connect(address);
				Watcher watcher = new Watcher(channel, request, zone, ready);
				watchers.add(watcher);
				readers.add(watcher);
			}
			ready.await(options.positive("--open-timeout"), TimeUnit.SECONDS);
			List<String> failures = watchers.stream()
				.filter(w -> !w.ready || w.failure != null)
				.map(w -> w.failure == null ? "no snapshot in time" : w.failure)
				.toList();
			failures.stream().limit(3).forEach(f -> System.err.println("a watcher failed to open: " + f));
			System.out.printf(Locale.ROOT, "%d %s watchers open in %.1f s, %d failed%n", count,
					zoned ? "zone" : "flat", (System.nanoTime() - start) / 1e9, failures.size());
			return failures.isEmpty();
		}

		private Phase window(String name, int round, List<Watcher> watchers, boolean zoned) throws IOException {
			int rate = options.positive("--rate");
			int warmupWrites = options.nonNegative("--warmup") * rate;
			int total = warmupWrites + options.positive("--seconds") * rate;
			int[] marks = watchers.stream().mapToInt(Watcher::count).toArray();
			long[] revisions = new long[total];
			long[] acked = new long[total];
			int[] zoneOf = new int[total];
			long period = TimeUnit.SECONDS.toNanos(1) / rate;
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			long[] self = { ProcessHandle.current().pid() };
			double serverBefore = 0;
			double selfBefore = 0;
			int errors = 0;
			for (int j = 0; j < total; j++) {
				Compare.parkUntil(start + j * period);
				if (j == warmupWrites) {
					serverBefore = ProcCpu.seconds(pids);
					selfBefore = ProcCpu.seconds(self);
				}
				int n = written++;
				int zone = n % zones;
				int k = (n / zones) % perZone;
				// A weight its instance does not have yet: every write is a change.
				int weight = 1 + (n / (zones * perZone)) % 9999;
				zoneOf[j] = zone;
				Http1.Response response = writer.exchange("PATCH",
						"/v1/services/%s/instances/%s".formatted(service, instance(zone, k)),
						headers + "Content-Type: application/json\r\n", "{\"weight\":" + weight + "}");
				acked[j] = System.nanoTime();
				Matcher revision = REVISION.matcher(response.body());
				if (response.status() != 200 || !revision.find()) {
					System.err.println("PATCH answered " + response.status() + ": " + response.body());
					revisions[j] = -1;
					errors++;
				}
				else {
					revisions[j] = Long.parseLong(revision.group(1));
				}
			}
			// The last revision each watcher is owed: the last change, or its zone's last.
			long last = Arrays.stream(revisions).max().orElse(-1);
			long[] lastOfZone = new long[zones];
			Arrays.fill(lastOfZone, -1);
			for (int j = 0; j < total; j++) {
				lastOfZone[zoneOf[j]] = Math.max(lastOfZone[zoneOf[j]], revisions[j]);
			}
			long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.positive("--drain"));
			while (System.nanoTime() < drainUntil
					&& watchers.stream().anyMatch(w -> w.last() < (zoned ? lastOfZone[w.zone] : last))) {
				Compare.parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
			}
			double serverCpu = ProcCpu.seconds(pids) - serverBefore;
			double selfCpu = ProcCpu.seconds(self) - selfBefore;
			int measured = total - warmupWrites;
			List<Long> latencies = new ArrayList<>();
			long delivered = 0;
			long missing = 0;
			long surplus = 0;
			long outOfOrder = 0;
			for (int i = 0; i < watchers.size(); i++) {
				Watcher watcher = watchers.get(i);
				int received = watcher.count();
				long owedChanges = 0;
				for (int e = marks[i] + 1; e < received; e++) {
					if (watcher.revision(e) <= watcher.revision(e - 1)) {
						outOfOrder++;
					}
				}
				int e = marks[i];
				for (int j = 0; j < total; j++) {
					if (revisions[j] < 0 || (zoned && zoneOf[j] != watcher.zone)) {
						continue;
					}
					owedChanges++;
					while (e < received && watcher.revision(e) < revisions[j]) {
						e++;
					}
					if (e == received) {
						missing++;
						continue;
					}
					if (j >= warmupWrites) {
						latencies.add(Math.max(0, watcher.arrival(e) - acked[j]));
					}
				}
				// Events of the measured window only, for the CPU per event.
				for (int f = marks[i]; f < received; f++) {
					if (watcher.arrival(f) >= acked[warmupWrites == 0 ? 0 : warmupWrites - 1]) {
						delivered++;
					}
				}
				surplus += Math.max(0, received - marks[i] - owedChanges);
			}
			long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
			boolean ok = errors == 0 && missing == 0 && surplus == 0 && outOfOrder == 0;
			String summary = ("watchers=%d changes=%d events_per_change=%.0f server_ms_per_change=%.2f "
					+ "server_us_per_event=%.2f p50_ms=%s p99_ms=%s max_ms=%s client_us_per_event=%.2f missing=%d "
					+ "surplus=%d out_of_order=%d errors=%d")
				.formatted(watchers.size(), measured, delivered / (double) measured, serverCpu * 1e3 / measured,
						delivered == 0 ? 0.0 : serverCpu * 1e6 / delivered, Compare.millis(Compare.percentile(sorted, 50)),
						Compare.millis(Compare.percentile(sorted, 99)),
						Compare.millis(sorted.length == 0 ? -1 : sorted[sorted.length - 1]),
						delivered == 0 ? 0.0 : selfCpu * 1e6 / delivered, missing, surplus, outOfOrder, errors);
			System.out.println("RESULT figure=zone-views phase=%s round=%d load=%s %s".formatted(name, round,
					loadAverage(), summary));
			return new Phase(ok, summary);
		}

		private static String loadAverage() {
			try {
				return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
			}
			catch (IOException ex) {
				return "?";
			}
		}

	}

	/** What one phase found: whether it held, and its figures. */
	record Phase(boolean ok, String summary) {
	}

	/**
	 * One watcher's stream: server-sent event lines parsed in place as they arrive. Of an
	 * event it keeps whether it is a snapshot and the first {@code "revision":N} of its
	 * data (the list's revision comes before its instances'; an upsert has one). The first
	 * snapshot starts the watcher; every later event is received. Written by its selector
	 * thread only; the count is published with release semantics after each event.
	 */
	static final class Watcher extends WatchStream {

		private static final byte[] PATTERN = "\"revision\":".getBytes(StandardCharsets.US_ASCII);

		private static final VarHandle COUNT;

		static {
			try {
				COUNT = MethodHandles.lookup().findVarHandle(Watcher.class, "count", int.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		final int zone;

		final CountDownLatch latch;

		/** Where the current line stands: its first bytes (to tell its field), and the data scan. */
		private final byte[] start = new byte[7];

		private int lineLength;

		private boolean afterCR;

		private boolean data;

		private int matched;

		private long revision = -1;

		private boolean digits;

		private boolean eventHasRevision;

		private long[] revisions = new long[256];

		private long[] arrivals = new long[256];

		private int count;

		volatile boolean ready;

		volatile String failure;

		Watcher(SocketChannel channel, byte[] request, int zone, CountDownLatch latch) {
			super(channel, ByteBuffer.wrap(request));
			this.zone = zone;
			this.latch = latch;
		}

		@Override
		boolean ready() {
			return ready;
		}

		@Override
		String body(byte[] in, int from, int length, long now) {
			int end = from + length;
			for (int i = from; i < end; i++) {
				byte b = in[i];
				if (b == '\n' && afterCR) {
					afterCR = false;
					continue;
				}
				afterCR = b == '\r';
				if (b == '\n' || b == '\r') {
					endOfLine(now);
					continue;
				}
				if (lineLength < start.length) {
					start[lineLength] = b;
				}
				lineLength++;
				if (lineLength == 5) {
					data = start[0] == 'd' && start[1] == 'a' && start[2] == 't' && start[3] == 'a' && start[4] == ':';
				}
				if (data && !eventHasRevision) {
					scan(b);
				}
			}
			return null;
		}

		/** Looks for the first {@code "revision":} of the event's data and reads its digits. */
		private void scan(byte b) {
			if (digits) {
				if (b >= '0' && b <= '9') {
					revision = revision * 10 + (b - '0');
					return;
				}
				digits = false;
				eventHasRevision = true;
				return;
			}
			matched = b == PATTERN[matched] ? matched + 1 : (b == PATTERN[0] ? 1 : 0);
			if (matched == PATTERN.length) {
				matched = 0;
				digits = true;
				revision = 0;
			}
		}

		private void endOfLine(long now) {
			int length = lineLength;
			lineLength = 0;
			data = false;
			if (digits) {
				digits = false;
				eventHasRevision = true;
			}
			matched = 0;
			if (length > 0) {
				return;
			}
			// A blank line: the event is complete.
			if (eventHasRevision) {
				if (!ready) {
					ready = true;
					latch.countDown();
				}
				else {
					received(revision, now);
				}
			}
			eventHasRevision = false;
			revision = -1;
		}

		private void received(long at, long now) {
			int n = count;
			if (n == revisions.length) {
				revisions = Arrays.copyOf(revisions, n * 2);
				arrivals = Arrays.copyOf(arrivals, n * 2);
			}
			revisions[n] = at;
			arrivals[n] = now;
			COUNT.setRelease(this, n + 1);
		}

		int count() {
			return (int) COUNT.getAcquire(this);
		}

		long revision(int e) {
			return revisions[e];
		}

		long arrival(int e) {
			return arrivals[e];
		}

		long last() {
			int n = count();
			return n == 0 ? -1 : revisions[n - 1];
		}

		void fail(String reason) {
			if (failure == null) {
				failure = reason;
			}
			if (!ready) {
				latch.countDown();
			}
		}

	}

	/** The selector threads that read the watchers ({@link SelectorLoop}). */
	static final class Readers implements SelectorLoop.Owner {

		final SelectorLoop[] loops;

		volatile boolean stopping;

		int next;

		Readers(int threads) {
			loops = new SelectorLoop[threads];
		}

		void start() throws IOException {
			for (int i = 0; i < loops.length; i++) {
				loops[i] = new SelectorLoop(this, i + 1);
				loops[i].thread.start();
			}
		}

		void add(Watcher watcher) {
			loops[next++ % loops.length].add(watcher);
		}

		@Override
		public boolean stopping() {
			return stopping;
		}

		@Override
		public void fail(WatchStream stream, String kind, String detail) {
			((Watcher) stream).fail(kind + ": " + detail);
		}

		void stop() throws InterruptedException {
			stopping = true;
			for (SelectorLoop loop : loops) {
				if (loop != null) {
					loop.join();
				}
			}
		}

	}

}
