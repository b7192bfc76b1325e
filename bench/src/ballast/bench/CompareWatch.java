package ballast.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compare watch: write → event latency with N watchers, Ballast's SSE stream or etcd's watch
 * (HTTP gateway, POST /v3/watch). The watchers are opened first (and the memory they cost
 * measured), then the writer writes at a fixed rate; compare.sh alternates the two
 * registries, one call each per round (both at once would need twice the file descriptors
 * in one process). Latency is from the write's acknowledgement (the
 * writer has read the answer) to the event's arrival at a watcher, over every (watcher,
 * event) pair of the measured writes; an event that arrives before the acknowledgement
 * counts as 0. Every watcher must receive exactly the acknowledged revisions of each
 * window, once each and in order.
 *
 * <p>
 * The watchers' streams are read by a few selector threads (--selectors) that parse the
 * bytes in place (HTTP head, chunks, then SSE lines or etcd's JSON messages) without a
 * thread, a line or a string per event: at 10,000 watchers and 20 writes/s the generator
 * reads 200,000 events a second on the same cores as the server, and one virtual thread
 * per watcher reading lines cost it more CPU per event than the servers spent sending
 * them, so that the figure measured the generator. The CPU it still spends per event is
 * printed (client_us_per_event) next to the server's (server_us_per_event, all its
 * processes), and so is the fan-out spread: per write, the first watcher's event to the
 * last one's.
 */
final class CompareWatch {

	private CompareWatch() {
	}

	static int run(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 1,
				BenchArgs.defaults("--target", "ballast", "--url", "http://127.0.0.1:8080", "--pid", "0", "--watchers",
						"1000", "--rate", "20", "--warmup", "2", "--seconds", "10", "--open-rate", "1000", "--drain", "30",
						"--open-timeout", "120", "--selectors", "2"),
				"""
						Compare watch: opens --watchers watchers on Ballast (SSE) or etcd (HTTP gateway watch), at most
						--open-rate a second, reports what they cost the server (--pid: its process), then writes at --rate
						a second, --warmup unmeasured and --seconds measured seconds, and closes them. --selectors threads
						read the streams.""");
		int watchers = options.positive("--watchers");
		String tag = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
		long pid = options.longValue("--pid");
		Side side = options.oneOf("--target", "ballast", "etcd").equals("ballast")
				? new BallastSide(options.url("--url"), tag, pid) : new EtcdSide(options.url("--url"), tag, pid);
		side.readers = new Readers(options.positive("--selectors"));
		try {
			side.prepare();
			long[] before = side.memory();
			if (!side.open(watchers, options.positive("--open-rate"), options.positive("--open-timeout"))) {
				return 1;
			}
			long[] after = side.memory();
			if (watchers >= 100) {
				// A few watchers' cost is below the noise of a server's memory.
				Compare.result("watch-memory", side.peer, "watchers=%d rss_kib_per_watcher=%.1f%s".formatted(watchers,
						(after[0] - before[0]) / 1024.0 / watchers, before[1] < 0 ? ""
								: " heap_kib_per_watcher=%.1f".formatted((after[1] - before[1]) / 1024.0 / watchers)));
			}
			return side.window(options.positive("--rate"), options.nonNegative("--warmup"), options.positive("--seconds"),
					options.positive("--drain")) ? 0 : 1;
		}
		finally {
			side.closeAll();
		}
	}

	/**
	 * One watcher's stream, where its body parser stands, and what it received; read and
	 * parsed by one selector thread ({@link Readers}), which alone writes what it
	 * received: the count is published with release semantics after each event, so the
	 * writer's thread reads the events without taking a lock per event.
	 */
	static final class Watcher extends WatchStream {

		/** Bytes of a line kept: enough for "id: <revision>" and "event: snapshot". */
		static final int LINE_PREFIX = 48;

		private static final VarHandle COUNT;

		static {
			try {
				COUNT = MethodHandles.lookup().findVarHandle(Watcher.class, "count", int.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		final Side side;

		/** SSE: the current line's first bytes, and the event's id and name so far. */
		final byte[] line = new byte[LINE_PREFIX];

		int lineLength;

		boolean afterCR;

		long eventId = -1;

		boolean snapshot;

		boolean named;

		/** etcd: how much of each searched pattern the last bytes matched, and a number. */
		int revisionMatch;

		int createdMatch;

		long number = -1;

		/** Written by the selector thread only; read up to {@link #count()}. */
		private long[] revisions = new long[256];

		private long[] arrivals = new long[256];

		private int count;

		volatile boolean ready;

		volatile String failure;

		/** Counted down once, when the stream has started (snapshot or created). */
		volatile CountDownLatch latch;

		Watcher(SocketChannel channel, byte[] request, Side side) {
			super(channel, ByteBuffer.wrap(request));
			this.side = side;
		}

		@Override
		boolean ready() {
			return ready;
		}

		@Override
		String body(byte[] in, int from, int length, long now) {
			return side.body(this, in, from, length, now);
		}

		/** On the selector thread. */
		void received(long revision, long at) {
			int n = count;
			if (n == revisions.length) {
				revisions = Arrays.copyOf(revisions, n * 2);
				arrivals = Arrays.copyOf(arrivals, n * 2);
			}
			revisions[n] = revision;
			arrivals[n] = at;
			// After the arrays: whoever reads this count sees them filled up to it.
			COUNT.setRelease(this, n + 1);
		}

		/** How many events arrived; those below it may be read from any thread. */
		int count() {
			return (int) COUNT.getAcquire(this);
		}

		/** The revision of event {@code e} (below {@link #count()}). */
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

		void started() {
			if (!ready) {
				ready = true;
				latch.countDown();
			}
		}

		/** Ends the watcher with a reason (the first one counts). */
		void fail(String reason) {
			if (failure == null) {
				failure = reason;
			}
			if (!ready) {
				latch.countDown();
			}
		}

	}

	/**
	 * The selector threads that read every watcher's stream ({@link SelectorLoop}, the
	 * same as {@code WatchLatency}'s): each owns the watchers given to it, sends their
	 * requests and parses what arrives in place.
	 */
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

		/** Hands a watcher whose connect was started to the next thread. */
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

	/** One registry under watch: how to open a watcher, parse its stream and write. */
	abstract static class Side {

		final Peer peer;

		final String tag;

		final long pid;

		final List<Watcher> watchers = new ArrayList<>();

		final Http1 writer;

		Readers readers;

		Side(Peer peer, String tag, long pid) {
			this.peer = peer;
			this.tag = tag;
			this.pid = pid;
			this.writer = new Http1(peer.base);
		}

		abstract void prepare() throws IOException;

		/** {RSS bytes, heap bytes after a full GC or -1}. */
		abstract long[] memory() throws IOException, InterruptedException;

		/** The bytes of the watch request. */
		abstract byte[] watchRequest();

		/**
		 * Parses {@code length} bytes of a watcher's body (unchunked) that arrived at
		 * {@code now}; a problem that ends the stream, or null.
		 */
		abstract String body(Watcher watcher, byte[] in, int from, int length, long now);

		byte[] request(String method, String path, String headers, String body) {
			byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
			byte[] head = ("%s %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s\r\n".formatted(method, path, peer.base.getHost(),
					peer.base.getPort(), headers, body == null ? "" : "Content-Length: " + payload.length + "\r\n"))
				.getBytes(StandardCharsets.US_ASCII);
			byte[] request = Arrays.copyOf(head, head.length + payload.length);
			System.arraycopy(payload, 0, request, head.length, payload.length);
			return request;
		}

		/** Write number j; its revision, or -1 with the reason printed. */
		abstract long write(int j) throws IOException;

		/** Keeps the watched instances' leases from lapsing (which would be changes of their own). */
		void renew() throws IOException {
		}

		boolean open(int count, int rate, int timeoutSeconds) throws InterruptedException {
			CountDownLatch ready = new CountDownLatch(count);
			long start = System.nanoTime();
			long period = TimeUnit.SECONDS.toNanos(1) / rate;
			byte[] request = watchRequest();
			InetSocketAddress address = new InetSocketAddress(peer.base.getHost(), peer.base.getPort());
			try {
				readers.start();
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
			for (int i = 0; i < count; i++) {
				Compare.parkUntil(start + i * period);
				SocketChannel channel;
				try {
					channel = SocketChannel.open();
					channel.configureBlocking(false);
					channel.connect(address);
				}
				catch (IOException ex) {
					System.err.println(name() + " watcher failed to connect: " + ex);
					return false;
				}
				Watcher watcher = new Watcher(channel, request, this);
				watcher.latch = ready;
				watchers.add(watcher);
				readers.add(watcher);
			}
			ready.await(timeoutSeconds, TimeUnit.SECONDS);
			List<String> failures = watchers.stream()
				.filter(w -> !w.ready || w.failure != null)
				.map(w -> w.failure == null ? "not started in time" : w.failure)
				.toList();
			failures.stream().limit(3).forEach(f -> System.err.println(name() + " watcher failed to open: " + f));
			System.out.printf("%s: %d watchers open in %.1f s, %d failed%n", name(), count,
					(System.nanoTime() - start) / 1e9, failures.size());
			return failures.isEmpty();
		}

		String name() {
			return this instanceof BallastSide ? "ballast" : "etcd";
		}

		boolean window(int rate, int warmup, int seconds, int drainSeconds) throws IOException {
			renew();
			int[] marks = new int[watchers.size()];
			for (int i = 0; i < marks.length; i++) {
				marks[i] = watchers.get(i).count();
			}
			int total = (warmup + seconds) * rate;
			int warmupWrites = warmup * rate;
			long[] revisions = new long[total];
			long[] acked = new long[total];
			long period = TimeUnit.SECONDS.toNanos(1) / rate;
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			long[] self = { ProcessHandle.current().pid() };
			long[] server = pid > 0 ? new long[] { pid } : new long[0];
			double selfBefore = ProcCpu.seconds(self);
			double serverBefore = ProcCpu.seconds(server);
			int errors = 0;
			for (int j = 0; j < total; j++) {
				Compare.parkUntil(start + j * period);
				try {
					revisions[j] = write(j);
				}
				catch (IOException ex) {
					System.err.println(name() + " write: " + ex);
					revisions[j] = -1;
				}
				acked[j] = System.nanoTime();
				if (revisions[j] < 0) {
					errors++;
				}
			}
			long last = revisions[total - 1];
			long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(drainSeconds);
			while (System.nanoTime() < drainUntil && watchers.stream().anyMatch(w -> w.last() < last)) {
				Compare.parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
			}
			double selfCpu = ProcCpu.seconds(self) - selfBefore;
			double serverCpu = ProcCpu.seconds(server) - serverBefore;
			long delivered = 0;
			for (int i = 0; i < watchers.size(); i++) {
				delivered += watchers.get(i).count() - marks[i];
			}
			Map<Long, Integer> position = new HashMap<>();
			for (int j = 0; j < total; j++) {
				if (revisions[j] >= 0) {
					position.put(revisions[j], j);
				}
			}
			long[] latencies = new long[watchers.size() * (total - warmupWrites)];
			int n = 0;
			long missing = 0;
			long duplicates = 0;
			long outOfOrder = 0;
			long unexpected = 0;
			long events = 0;
			// Per write: its event's first and last arrival over all watchers.
			long[] first = new long[total];
			long[] lastArrival = new long[total];
			Arrays.fill(first, Long.MAX_VALUE);
			for (int i = 0; i < watchers.size(); i++) {
				Watcher watcher = watchers.get(i);
				boolean[] got = new boolean[total];
				long previous = -1;
				int received = watcher.count();
				for (int e = marks[i]; e < received; e++) {
					long revision = watcher.revision(e);
					Integer j = position.get(revision);
					if (j == null) {
						unexpected++;
						continue;
					}
					if (got[j]) {
						duplicates++;
						continue;
					}
					got[j] = true;
					if (revision <= previous) {
						outOfOrder++;
					}
					previous = revision;
					if (j >= warmupWrites) {
						events++;
						latencies[n++] = Math.max(0, watcher.arrival(e) - acked[j]);
						first[j] = Math.min(first[j], watcher.arrival(e));
						lastArrival[j] = Math.max(lastArrival[j], watcher.arrival(e));
					}
				}
				for (int j = 0; j < total; j++) {
					if (revisions[j] >= 0 && !got[j]) {
						missing++;
					}
				}
			}
			long[] sorted = Arrays.copyOf(latencies, n);
			Arrays.sort(sorted);
			long[] spreads = new long[total - warmupWrites];
			int spreadCount = 0;
			for (int j = warmupWrites; j < total; j++) {
				if (first[j] <= lastArrival[j]) {
					spreads[spreadCount++] = lastArrival[j] - first[j];
				}
			}
			spreads = Arrays.copyOf(spreads, spreadCount);
			Arrays.sort(spreads);
			Compare.result("watch", peer,
					("watchers=%d p50_ms=%s p99_ms=%s max_ms=%s spread_p50_ms=%s spread_p99_ms=%s client_us_per_event=%.2f "
							+ "server_us_per_event=%.2f events=%d missing=%d duplicates=%d out_of_order=%d unexpected=%d errors=%d")
						.formatted(watchers.size(), Compare.millis(Compare.percentile(sorted, 50)),
								Compare.millis(Compare.percentile(sorted, 99)),
								Compare.millis(sorted.length == 0 ? -1 : sorted[sorted.length - 1]),
								Compare.millis(Compare.percentile(spreads, 50)),
								Compare.millis(Compare.percentile(spreads, 99)),
								delivered == 0 ? 0.0 : selfCpu * 1e6 / delivered,
								delivered == 0 ? 0.0 : serverCpu * 1e6 / delivered, events, missing, duplicates, outOfOrder,
								unexpected, errors));
			return missing == 0 && duplicates == 0 && outOfOrder == 0 && unexpected == 0 && errors == 0;
		}

		void closeAll() throws InterruptedException {
			readers.stop();
			writer.close();
		}

		static long rss(long pid) throws IOException {
			for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
				if (line.startsWith("VmRSS:")) {
					return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
				}
			}
			return -1;
		}

	}

	static final class BallastSide extends Side {

		static final Pattern HEAP = Pattern.compile("(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*\\} (\\S+)");

		final String service;

		final String headers;

		BallastSide(URI base, String tag, long pid) {
			super(Peer.of("ballast", base), tag, pid);
			this.service = "watch-" + tag;
			this.headers = ((Peer.Ballast) peer).headers;
		}

		@Override
		void prepare() throws IOException {
			for (int k = 0; k < 4; k++) {
				Http1.Response response = writer.exchange("PUT", "/v1/services/%s/instances/i-%d".formatted(service, k),
						headers + "Content-Type: application/json\r\n",
						"{\"address\":\"127.0.0.1\",\"port\":%d,\"weight\":10000,\"leaseTtlSeconds\":300}".formatted(9000 + k));
				if (response.status() != 201) {
					throw new IOException("register: " + response.status() + " " + response.body());
				}
			}
			// The writer lowers weights at will, which the guard would refuse once its
			// budget is used: the budget is opened (the guard still runs on every write),
			// since this figure measures delivery, not the guard.
			Http1.Response opened = writer.exchange("PATCH", "/v1/services/" + service,
					headers + "Content-Type: application/json\r\n", "{\"maxUnroutable\":\"100%\"}");
			if (opened.status() != 200) {
				throw new IOException("budget: " + opened.status() + " " + opened.body());
			}
		}

		@Override
		void renew() throws IOException {
			for (int k = 0; k < 4; k++) {
				writer.exchange("POST", "/v1/services/%s/instances/i-%d/heartbeat".formatted(service, k), headers, null);
			}
		}

		@Override
		long[] memory() throws IOException, InterruptedException {
			if (pid <= 0) {
				return new long[] { 0, -1 };
			}
			Process gc = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!gc.waitFor(60, TimeUnit.SECONDS)) {
				gc.destroyForcibly();
			}
			Thread.sleep(500);
			String metrics = writer.exchange("GET", "/actuator/prometheus", headers, null).body();
			Matcher heap = HEAP.matcher(metrics);
			double sum = 0;
			while (heap.find()) {
				sum += Double.parseDouble(heap.group(1));
			}
			return new long[] { rss(pid), (long) sum };
		}

		@Override
		byte[] watchRequest() {
			return request("GET", "/v1/services/" + service + "/watch", headers + "Accept: text/event-stream\r\n", null);
		}

		/**
		 * Server-sent event lines (WHATWG HTML: CR, LF or CRLF ends a line, a blank line
		 * dispatches): the first snapshot starts the watcher, every other named event with
		 * an id is received.
		 */
		@Override
		String body(Watcher w, byte[] in, int from, int length, long now) {
			int end = from + length;
			for (int i = from; i < end; i++) {
				byte b = in[i];
				if (b == '\n' && w.afterCR) {
					w.afterCR = false;
					continue;
				}
				w.afterCR = b == '\r';
				if (b == '\n' || b == '\r') {
					String problem = line(w, now);
					if (problem != null) {
						return problem;
					}
				}
				else if (w.lineLength == 0
						|| w.lineLength < Watcher.LINE_PREFIX && (w.line[0] == 'i' || w.line[0] == 'e')) {
					w.line[w.lineLength++] = b;
				}
				else {
					// Neither "id:" nor "event:" (data, a comment) or too long: only where
					// the line ends matters.
					while (i + 1 < end && in[i + 1] != '\n' && in[i + 1] != '\r') {
						i++;
					}
				}
			}
			return null;
		}

		private static String line(Watcher w, long now) {
			byte[] l = w.line;
			int length = w.lineLength;
			w.lineLength = 0;
			if (length == 0) {
				if (w.snapshot && !w.ready) {
					w.started();
				}
				else if (w.named && w.eventId >= 0) {
					w.received(w.eventId, now);
				}
				w.eventId = -1;
				w.named = false;
				w.snapshot = false;
				return null;
			}
			if (length >= 3 && l[0] == 'i' && l[1] == 'd' && l[2] == ':') {
				long id = 0;
				int k = length > 3 && l[3] == ' ' ? 4 : 3;
				if (k == length || length == Watcher.LINE_PREFIX) {
					return "an id that is empty or too long";
				}
				for (int start = k; k < length; k++) {
					if (l[k] == '@' && k > start) {
						// After a failover, "<revision>@<history>": the revision is what counts.
						break;
					}
					int digit = l[k] - '0';
					if (digit < 0 || digit > 9) {
						return "a non-numeric id: " + new String(l, 0, length, StandardCharsets.UTF_8);
					}
					id = id * 10 + digit;
				}
				w.eventId = id;
			}
			else if (length >= 6 && l[0] == 'e' && l[1] == 'v' && l[2] == 'e' && l[3] == 'n' && l[4] == 't'
					&& l[5] == ':') {
				int k = length > 6 && l[6] == ' ' ? 7 : 6;
				w.named = true;
				w.snapshot = new String(l, k, length - k, StandardCharsets.UTF_8).equals("snapshot");
			}
			return null;
		}

		@Override
		long write(int j) throws IOException {
			int k = j % 4;
			// Every write a weight its instance does not have yet, so each is a change and an event.
			int weight = 1 + (j / 4) % 9999;
			Http1.Response response = writer.exchange("PATCH", "/v1/services/%s/instances/i-%d".formatted(service, k),
					headers + "Content-Type: application/json\r\n", "{\"weight\":" + weight + "}");
			Matcher revision = Peer.REVISION.matcher(response.body());
			if (response.status() != 200 || !revision.find()) {
				System.err.println("ballast PATCH: " + response.status() + " " + response.body());
				return -1;
			}
			return Long.parseLong(revision.group(1));
		}

	}

	static final class EtcdSide extends Side {

		static final byte[] MOD_REVISION_BYTES = "\"mod_revision\":\"".getBytes(StandardCharsets.US_ASCII);

		static final byte[] CREATED_BYTES = "\"created\":true".getBytes(StandardCharsets.US_ASCII);

		static final Pattern HEADER_REVISION = Pattern.compile("\"revision\":\"(\\d+)\"");

		final String prefix;

		EtcdSide(URI base, String tag, long pid) {
			super(Peer.of("etcd", base), tag, pid);
			this.prefix = "/watch/" + tag + "/";
		}

		@Override
		void prepare() {
		}

		@Override
		long[] memory() throws IOException {
			return new long[] { pid <= 0 ? 0 : rss(pid), -1 };
		}

		@Override
		byte[] watchRequest() {
			// range_end: the prefix with its last byte incremented ('/' + 1 = '0').
			return request("POST", "/v3/watch", Peer.Etcd.HEADERS,
					"{\"create_request\":{\"key\":\"%s\",\"range_end\":\"%s\"}}".formatted(Peer.Etcd.b64(prefix),
							Peer.Etcd.b64(prefix.substring(0, prefix.length() - 1) + "0")));
		}

		/**
		 * The gateway's JSON messages, searched as they stream by: {@code "created":true}
		 * starts the watcher, and each event's {@code "mod_revision":"N"} is received.
		 */
		@Override
		String body(Watcher w, byte[] in, int from, int length, long now) {
			int end = from + length;
			for (int i = from; i < end; i++) {
				byte b = in[i];
				if (w.number >= 0) {
					if (b >= '0' && b <= '9') {
						w.number = w.number * 10 + (b - '0');
						continue;
					}
					if (b != '"') {
						return "a mod_revision that is not a number";
					}
					w.received(w.number, now);
					w.number = -1;
				}
				w.revisionMatch = match(MOD_REVISION_BYTES, w.revisionMatch, b);
				if (w.revisionMatch == MOD_REVISION_BYTES.length) {
					w.revisionMatch = 0;
					w.number = 0;
				}
				if (!w.ready) {
					w.createdMatch = match(CREATED_BYTES, w.createdMatch, b);
					if (w.createdMatch == CREATED_BYTES.length) {
						w.started();
					}
				}
			}
			return null;
		}

		/**
		 * How much of {@code pattern} matches after {@code b}. Restarting at the byte itself
		 * is exact for these patterns: after a quote inside them comes a colon, never
		 * their second byte, so no longer part of a broken match can start a new one.
		 */
		private static int match(byte[] pattern, int matched, byte b) {
			if (pattern[matched] == b) {
				return matched + 1;
			}
			return pattern[0] == b ? 1 : 0;
		}

		@Override
		long write(int j) throws IOException {
			Http1.Response response = writer.exchange("POST", "/v3/kv/put", Peer.Etcd.HEADERS,
					"{\"key\":\"%s\",\"value\":\"%s\"}".formatted(Peer.Etcd.b64(prefix + "i-" + j % 4),
							Peer.Etcd.b64(Integer.toString(1 + (j / 4) % 9999))));
			Matcher revision = HEADER_REVISION.matcher(response.body());
			if (response.status() != 200 || !revision.find()) {
				System.err.println("etcd put: " + response.status() + " " + response.body());
				return -1;
			}
			return Long.parseLong(revision.group(1));
		}

	}

}
