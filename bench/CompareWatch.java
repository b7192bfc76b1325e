import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 */
final class CompareWatch {

	private CompareWatch() {
	}

	static int run(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 1,
				BenchArgs.defaults("--target", "ballast", "--url", "http://127.0.0.1:8080", "--pid", "0", "--watchers",
						"1000", "--rate", "20", "--warmup", "2", "--seconds", "10", "--open-rate", "1000", "--drain", "30",
						"--open-timeout", "120"),
				"""
						Compare watch: opens --watchers watchers on Ballast (SSE) or etcd (HTTP gateway watch), at most
						--open-rate a second, reports what they cost the server (--pid: its process), then writes at --rate
						a second, --warmup unmeasured and --seconds measured seconds, and closes them.""");
		int watchers = options.positive("--watchers");
		String tag = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
		long pid = options.longValue("--pid");
		Side side = options.oneOf("--target", "ballast", "etcd").equals("ballast")
				? new BallastSide(options.url("--url"), tag, pid) : new EtcdSide(options.url("--url"), tag, pid);
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

	/** One watcher's connection and what it received, read by its own virtual thread. */
	static final class Watcher {

		final Http1 http;

		long[] revisions = new long[256];

		long[] arrivals = new long[256];

		int count;

		volatile boolean ready;

		volatile String failure;

		/** Counted down once, when the stream has started (snapshot or created). */
		volatile CountDownLatch latch;

		Watcher(URI base) {
			this.http = new Http1(base, 30_000, 2048);
		}

		synchronized void received(long revision, long at) {
			if (count == revisions.length) {
				revisions = Arrays.copyOf(revisions, count * 2);
				arrivals = Arrays.copyOf(arrivals, count * 2);
			}
			revisions[count] = revision;
			arrivals[count] = at;
			count++;
		}

		synchronized int count() {
			return count;
		}

		synchronized long last() {
			return count == 0 ? -1 : revisions[count - 1];
		}

	}

	/** One registry under watch: how to open a watcher, parse its stream and write. */
	abstract static class Side {

		final Peer peer;

		final String tag;

		final long pid;

		final List<Watcher> watchers = new ArrayList<>();

		final Http1 writer;

		Side(Peer peer, String tag, long pid) {
			this.peer = peer;
			this.tag = tag;
			this.pid = pid;
			this.writer = new Http1(peer.base);
		}

		abstract void prepare() throws IOException;

		/** {RSS bytes, heap bytes after a full GC or -1}. */
		abstract long[] memory() throws IOException, InterruptedException;

		/** Sends the watch request and reads the stream until it ends. */
		abstract void stream(Watcher watcher) throws IOException;

		/** Write number j; its revision, or -1 with the reason printed. */
		abstract long write(int j) throws IOException;

		/** Keeps the watched instances' leases from lapsing (which would be changes of their own). */
		void renew() throws IOException {
		}

		boolean open(int count, int rate, int timeoutSeconds) throws InterruptedException {
			CountDownLatch ready = new CountDownLatch(count);
			long start = System.nanoTime();
			long period = TimeUnit.SECONDS.toNanos(1) / rate;
			AtomicInteger failed = new AtomicInteger();
			for (int i = 0; i < count; i++) {
				Compare.parkUntil(start + i * period);
				Watcher watcher = new Watcher(peer.base);
				watcher.latch = ready;
				watchers.add(watcher);
				Thread.ofVirtual().start(() -> {
					try {
						stream(watcher);
					}
					catch (IOException | RuntimeException ex) {
						watcher.failure = ex.toString();
					}
					if (!watcher.ready) {
						if (failed.getAndIncrement() < 3) {
							System.err.println(name() + " watcher failed to open: " + watcher.failure);
						}
						ready.countDown();
					}
				});
			}
			boolean all = ready.await(timeoutSeconds, TimeUnit.SECONDS) || allReady();
			System.out.printf("%s: %d watchers open in %.1f s, %d failed%n", name(), count,
					(System.nanoTime() - start) / 1e9, failed.get());
			return allReady();
		}

		boolean allReady() {
			return watchers.stream().allMatch(w -> w.ready && w.failure == null);
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
			for (int i = 0; i < watchers.size(); i++) {
				Watcher watcher = watchers.get(i);
				synchronized (watcher) {
					boolean[] got = new boolean[total];
					long previous = -1;
					for (int e = marks[i]; e < watcher.count; e++) {
						long revision = watcher.revisions[e];
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
							latencies[n++] = Math.max(0, watcher.arrivals[e] - acked[j]);
						}
					}
					for (int j = 0; j < total; j++) {
						if (revisions[j] >= 0 && !got[j]) {
							missing++;
						}
					}
				}
			}
			long[] sorted = Arrays.copyOf(latencies, n);
			Arrays.sort(sorted);
			Compare.result("watch", peer,
					"watchers=%d p50_ms=%s p99_ms=%s max_ms=%s events=%d missing=%d duplicates=%d out_of_order=%d unexpected=%d errors=%d"
						.formatted(watchers.size(), Compare.millis(Compare.percentile(sorted, 50)),
								Compare.millis(Compare.percentile(sorted, 99)),
								Compare.millis(sorted.length == 0 ? -1 : sorted[sorted.length - 1]), events, missing,
								duplicates, outOfOrder, unexpected, errors));
			return missing == 0 && duplicates == 0 && outOfOrder == 0 && unexpected == 0 && errors == 0;
		}

		void closeAll() {
			for (Watcher watcher : watchers) {
				watcher.http.close();
			}
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
		void stream(Watcher watcher) throws IOException {
			int status = watcher.http.openStream("GET", "/v1/services/" + service + "/watch",
					headers + "Accept: text/event-stream\r\n", null);
			if (status != 200) {
				throw new IOException("watch: " + status);
			}
			watcher.http.streamTimeout(0);
			long id = -1;
			String event = null;
			for (String line = watcher.http.readLine(); line != null; line = watcher.http.readLine()) {
				if (line.isEmpty()) {
					if ("snapshot".equals(event) && !watcher.ready) {
						watcher.ready = true;
						watcher.latch.countDown();
					}
					else if (event != null && id >= 0) {
						watcher.received(id, System.nanoTime());
					}
					event = null;
					id = -1;
				}
				else if (line.startsWith("id:")) {
					id = Long.parseLong(line.substring(3).trim());
				}
				else if (line.startsWith("event:")) {
					event = line.substring(6).trim();
				}
			}
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

		static final Pattern MOD_REVISION = Pattern.compile("\"mod_revision\":\"(\\d+)\"");

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
		void stream(Watcher watcher) throws IOException {
			// range_end: the prefix with its last byte incremented ('/' + 1 = '0').
			int status = watcher.http.openStream("POST", "/v3/watch", Peer.Etcd.HEADERS,
					"{\"create_request\":{\"key\":\"%s\",\"range_end\":\"%s\"}}".formatted(Peer.Etcd.b64(prefix),
							Peer.Etcd.b64(prefix.substring(0, prefix.length() - 1) + "0")));
			if (status != 200) {
				throw new IOException("watch: " + status);
			}
			watcher.http.streamTimeout(0);
			for (String line = watcher.http.readLine(); line != null; line = watcher.http.readLine()) {
				long at = System.nanoTime();
				if (!watcher.ready && line.contains("\"created\":true")) {
					watcher.ready = true;
					watcher.latch.countDown();
				}
				Matcher revision = MOD_REVISION.matcher(line);
				while (revision.find()) {
					watcher.received(Long.parseLong(revision.group(1)), at);
				}
			}
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
