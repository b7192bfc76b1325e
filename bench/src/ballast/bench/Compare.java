package ballast.bench;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The load generator of bench/compare.sh: one program, the same client code (Http1, one
 * HTTP/1.1 keep-alive connection per client thread) for Ballast, Eureka and etcd; only the
 * requests differ (Peer). Each figure is a subcommand and ends with one line
 *
 * RESULT figure=... target=... key=value ...
 *
 * that compare.sh collects into its table. Correctness is checked in every figure: every
 * renewal must be answered as one, every registration is read back with the value last
 * acknowledged, every watcher must see every acknowledged revision once and in order.
 *
 * java -cp <classes> Compare heartbeats|registrations|watch|visibility --help
 */
public class Compare {

	public static void main(String[] args) throws Exception {
		String figure = args.length == 0 ? "--help" : args[0];
		int status = switch (figure) {
			case "heartbeats" -> heartbeats(args);
			case "registrations" -> registrations(args);
			case "watch" -> CompareWatch.run(args);
			case "visibility" -> visibility(args);
			default -> {
				System.out.println("usage: Compare heartbeats|registrations|watch|visibility [options], --help for each");
				yield figure.equals("--help") ? 0 : 2;
			}
		};
		System.exit(status);
	}

	// ---------------------------------------------------------------- heartbeats

	static int heartbeats(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 1,
				BenchArgs.defaults("--target", "ballast", "--url", "http://127.0.0.1:8080", "--instances", "20000", "--groups", "100",
						"--from", "0", "--populate-clients", "16", "--ttl", "3600", "--connections", "32", "--warmup", "5",
						"--seconds", "10"),
				"""
						Compare heartbeats: registers instances [--from, --instances) (Ballast: instance i-K of service
						bench-(K % groups); Eureka: app BENCH-(K % groups); etcd: a lease of its own per instance and a key on
						it; leases of --ttl seconds, Ballast's at most 300), then renews all of them round-robin from --connections closed-loop clients for --warmup
						unmeasured and --seconds measured seconds (Ballast POST .../heartbeat, Eureka PUT
						/eureka/apps/{app}/{id}, etcd POST /v3/lease/keepalive).""");
		Peer peer = Peer.of(options.oneOf("--target", "ballast", "eureka", "etcd"), options.url("--url"));
		int instances = options.positive("--instances");
		int groups = options.positive("--groups");
		int from = options.nonNegative("--from");
		int ttl = options.positive("--ttl");
		if (from > 0 && from < instances) {
			// The instances registered before must not lapse while the rest are registered
			// (Ballast's longest lease is 300 s; registering 80,000 takes minutes).
			AtomicInteger next = new AtomicInteger();
			AtomicInteger failures = new AtomicInteger();
			runClients(options.positive("--populate-clients"), Long.MAX_VALUE, (client, http) -> {
				for (int k = next.getAndIncrement(); k < from; k = next.getAndIncrement()) {
					String failure = peer.renew(http, k, groups);
					if (failure != null && failures.getAndIncrement() < 3) {
						System.err.println("renew i-" + k + ": " + failure);
					}
				}
			}, peer.base);
			System.out.printf("renewed the %d instances registered before, %d failures%n", from, failures.get());
		}
		if (from < instances) {
			long began = System.nanoTime();
			AtomicInteger next = new AtomicInteger(from);
			AtomicInteger failures = new AtomicInteger();
			runClients(options.positive("--populate-clients"), Long.MAX_VALUE, (client, http) -> {
				for (int k = next.getAndIncrement(); k < instances && failures.get() < 20; k = next.getAndIncrement()) {
					try {
						peer.register(http, k, groups, ttl);
					}
					catch (IOException ex) {
						if (failures.getAndIncrement() < 3) {
							System.err.println(ex.getMessage());
						}
					}
				}
			}, peer.base);
			double seconds = (System.nanoTime() - began) / 1e9;
			System.out.printf("registered %d instances in %.1f s (%.0f/s), %d failures%n", instances - from, seconds,
					(instances - from) / seconds, failures.get());
			if (failures.get() > 0) {
				return 1;
			}
		}
		int measured = options.nonNegative("--seconds");
		if (measured == 0) {
			return 0;
		}
		int connections = options.positive("--connections");
		AtomicLong next = new AtomicLong(ThreadLocalRandom.current().nextInt(instances));
		Load load = closedLoop(connections, options.nonNegative("--warmup"), measured, peer.base,
				http -> peer.renew(http, (int) (next.getAndIncrement() % instances), groups));
		result("heartbeats", peer, load.rateLine() + " instances=" + instances + " connections=" + connections);
		return load.failures() == 0 ? 0 : 1;
	}

	// ---------------------------------------------------------------- registrations

	static int registrations(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 1,
				BenchArgs.defaults("--target", "ballast", "--url", "http://127.0.0.1:8080", "--clients", "8", "--per-client", "50",
						"--warmup", "5", "--seconds", "10", "--pids", ""),
				"""
						Compare registrations: --clients closed-loop clients, each cycling through its own --per-client
						instances over 4 services (apps, key prefixes), every write a new weight (Ballast PUT instance, Eureka
						POST register, etcd put). --warmup unmeasured, --seconds measured; then every instance is read back
						and must hold its last acknowledged weight. --pids: the server's processes (their children included)
						whose CPU time over the measured window is divided by the writes.""");
		Peer peer = Peer.of(options.oneOf("--target", "ballast", "eureka", "etcd"), options.url("--url"));
		int clients = options.positive("--clients");
		int perClient = options.positive("--per-client");
		long[] pids = options.pids("--pids");
		String tag = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
		int[][] acked = new int[clients][perClient];
		int[] cursor = new int[clients];
		AtomicInteger weights = new AtomicInteger();
		try (Http1 http = new Http1(peer.base)) {
			peer.prepareWrites(http, tag);
		}
		Load load = closedLoop(clients, options.nonNegative("--warmup"), options.positive("--seconds"), peer.base, pids,
				(client, http) -> {
					int k = cursor[client]++ % perClient;
					int weight = 1 + weights.getAndIncrement() % 9999;
					String failure = peer.write(http, tag, client, k, weight);
					if (failure == null) {
						acked[client][k] = weight;
					}
					return failure;
				});
		int checked = 0;
		int wrong = 0;
		try (Http1 http = new Http1(peer.base)) {
			for (int c = 0; c < clients; c++) {
				for (int k = 0; k < perClient; k++) {
					if (acked[c][k] == 0) {
						continue;
					}
					checked++;
					int stored = peer.read(http, tag, c, k);
					if (stored != acked[c][k] && wrong++ < 3) {
						System.err.printf("read back %d/%d: %d, acknowledged %d%n", c, k, stored, acked[c][k]);
					}
				}
			}
		}
		result("registrations", peer, load.rateLine() + " clients=" + clients
				+ (pids.length == 0 ? "" : " cpu_ms_per_write=%.3f".formatted(load.cpuMillisPerOp()))
				+ " read_back=" + (checked - wrong) + "/" + checked);
		return load.failures() == 0 && wrong == 0 ? 0 : 1;
	}

	// ---------------------------------------------------------------- visibility

	static final Pattern BALLAST_ID = Pattern.compile("\"id\":\"(v-[^\"]+)\"");

	static final Pattern EUREKA_ID = Pattern.compile("\"instanceId\":\"(v-[^\"]+)\"");

	static int visibility(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 1,
				BenchArgs.defaults("--target", "ballast", "--url", "http://127.0.0.1:8080", "--samples", "10", "--spread", "20",
						"--poll-ms", "100", "--timeout", "60"),
				"""
						Compare visibility: registers --samples new instances at random times over --spread seconds and
						measures from each registration's acknowledgement until a reader sees it. The reader: Ballast, a
						blocking query (?index=&wait=30s) on the service; Eureka, GET /eureka/apps/delta (what clients fetch)
						every --poll-ms; etcd, back-to-back range reads of the prefix. --timeout bounds the wait for the last.""");
		String target = options.oneOf("--target", "ballast", "eureka", "etcd");
		Peer peer = Peer.of(target, options.url("--url"));
		int samples = options.positive("--samples");
		int spread = options.positive("--spread");
		int pollMillis = options.positive("--poll-ms");
		String tag = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
		String[] ids = new String[samples];
		for (int j = 0; j < samples; j++) {
			ids[j] = "v-" + tag + "-" + j;
		}
		Map<String, Long> seen = new ConcurrentHashMap<>();
		long[] ackedAt = new long[samples];
		Http1 writer = new Http1(peer.base);
		Peer.Ballast ballast = peer instanceof Peer.Ballast b ? b : null;
		String service = "vis-" + tag;
		if (ballast != null) {
			// The service exists before the reader waits on it.
			writeVisible(peer, writer, service, "seed-" + tag);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(spread + options.positive("--timeout"));
		Thread reader = Thread.ofPlatform().daemon().start(() -> {
			try (Http1 http = new Http1(peer.base, 60_000, 64 * 1024)) {
				long index = 0;
				while (seen.size() < samples && System.nanoTime() < deadline) {
					String body;
					if (ballast != null) {
						body = http.exchange("GET", "/v1/services/%s/instances?index=%d&wait=30s".formatted(service, index),
								ballast.headers, null).body();
						Matcher revision = Peer.REVISION.matcher(body);
						if (revision.find()) {
							index = Long.parseLong(revision.group(1));
						}
					}
					else if (target.equals("eureka")) {
						body = http.exchange("GET", "/eureka/apps/delta", Peer.Eureka.HEADERS, null).body();
					}
					else {
						body = http.exchange("POST", "/v3/kv/range", Peer.Etcd.HEADERS,
								"{\"key\":\"%s\",\"range_end\":\"%s\"}".formatted(Peer.Etcd.b64("/vis/" + tag + "/"),
										Peer.Etcd.b64("/vis/" + tag + "0")))
							.body();
					}
					long now = System.nanoTime();
					for (String id : ids) {
						if (!seen.containsKey(id) && (target.equals("etcd") ? body.contains(Peer.Etcd.b64("/vis/" + tag + "/" + id))
								: body.contains("\"" + id + "\""))) {
							seen.put(id, now);
						}
					}
					if (target.equals("eureka")) {
						Thread.sleep(pollMillis);
					}
				}
			}
			catch (IOException | InterruptedException ex) {
				System.err.println("reader: " + ex);
			}
		});
		Random random = new Random();
		long[] offsets = new long[samples];
		for (int j = 0; j < samples; j++) {
			offsets[j] = (long) (random.nextDouble() * TimeUnit.SECONDS.toNanos(spread));
		}
		Arrays.sort(offsets);
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
		int failures = 0;
		for (int j = 0; j < samples; j++) {
			parkUntil(start + offsets[j]);
			String failure = writeVisible(peer, writer, service, ids[j]);
			ackedAt[j] = System.nanoTime();
			if (failure != null) {
				failures++;
				System.err.println("register " + ids[j] + ": " + failure);
			}
		}
		reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 35_000));
		writer.close();
		List<Long> delays = new ArrayList<>();
		for (int j = 0; j < samples; j++) {
			Long at = seen.get(ids[j]);
			if (at != null) {
				delays.add(Math.max(0, at - ackedAt[j]));
			}
		}
		long[] sorted = delays.stream().mapToLong(Long::longValue).sorted().toArray();
		result("visibility", peer, "seen=%d/%d p50_ms=%s max_ms=%s errors=%d".formatted(sorted.length, samples,
				millis(percentile(sorted, 50)), millis(sorted.length == 0 ? -1 : sorted[sorted.length - 1]), failures));
		return sorted.length == samples && failures == 0 ? 0 : 1;
	}

	private static String writeVisible(Peer peer, Http1 http, String service, String id) throws IOException {
		if (peer instanceof Peer.Ballast ballast) {
			Http1.Response response = http.exchange("PUT", "/v1/services/%s/instances/%s".formatted(service, id),
					ballast.headers + "Content-Type: application/json\r\n",
					"{\"address\":\"127.0.0.1\",\"port\":8000,\"leaseTtlSeconds\":300}");
			return response.status() == 201 || response.status() == 200 ? null : response.status() + " " + response.body();
		}
		if (peer instanceof Peer.Eureka) {
			String app = service.toUpperCase();
			return Peer.Eureka.post(http, app, Peer.Eureka.instance(app, id, 8000, 100, 300));
		}
		String tag = service.substring("vis-".length());
		Http1.Response response = http.exchange("POST", "/v3/kv/put", Peer.Etcd.HEADERS, "{\"key\":\"%s\",\"value\":\"%s\"}"
			.formatted(Peer.Etcd.b64("/vis/" + tag + "/" + id), Peer.Etcd.b64("127.0.0.1:8000")));
		return response.status() == 200 ? null : response.status() + " " + response.body();
	}

	// ---------------------------------------------------------------- closed-loop load

	interface Operation {

		/** One request; null when it succeeded, else why not. */
		String run(int client, Http1 http) throws IOException;

	}

	interface Simple {

		String run(Http1 http) throws IOException;

	}

	interface ClientBody {

		void run(int client, Http1 http) throws IOException;

	}

	/** What a closed-loop load measured. */
	record Load(long ops, double seconds, long[] latencies, long failures, double cpuSeconds) {

		double cpuMillisPerOp() {
			return ops == 0 ? 0 : cpuSeconds * 1000 / ops;
		}

		String rateLine() {
			return "rate=%.1f p50_ms=%s p99_ms=%s max_ms=%s ops=%d errors=%d".formatted(ops / seconds,
					millis(percentile(latencies, 50)), millis(percentile(latencies, 99)),
					millis(latencies.length == 0 ? -1 : latencies[latencies.length - 1]), ops, failures);
		}

	}

	static Load closedLoop(int clients, int warmup, int seconds, URI base, Simple operation) throws Exception {
		return closedLoop(clients, warmup, seconds, base, new long[0], (client, http) -> operation.run(http));
	}

	/**
	 * Runs clients threads, each on its own connection, sending the next request as soon as the
	 * last is answered, for warmup seconds unmeasured and then seconds measured. A client
	 * that fails 20 times in a row stops.
	 */
	static Load closedLoop(int clients, int warmup, int seconds, URI base, long[] pids, Operation operation)
			throws Exception {
		long measureFrom = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
		long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
		long[][] latencies = new long[clients][];
		int[] counts = new int[clients];
		AtomicLong failures = new AtomicLong();
		double[] cpu = new double[2];
		Thread sampler = Thread.ofPlatform().daemon().start(() -> {
			parkUntil(measureFrom);
			cpu[0] = ProcCpu.seconds(pids);
			parkUntil(measureTo);
			cpu[1] = ProcCpu.seconds(pids);
		});
		runClients(clients, measureTo, (client, http) -> {
			long[] mine = new long[1 << 16];
			int count = 0;
			int streak = 0;
			while (true) {
				long sent = System.nanoTime();
				if (sent >= measureTo) {
					break;
				}
				String failure;
				try {
					failure = operation.run(client, http);
				}
				catch (IOException ex) {
					failure = ex.toString();
				}
				long answered = System.nanoTime();
				boolean measured = sent >= measureFrom && answered <= measureTo;
				if (failure != null) {
					if (measured && failures.getAndIncrement() < 3) {
						System.err.println("client " + client + ": " + failure);
					}
					if (++streak >= 20) {
						System.err.println("client " + client + " stops after 20 failures in a row");
						break;
					}
					continue;
				}
				streak = 0;
				if (measured) {
					if (count == mine.length) {
						mine = Arrays.copyOf(mine, count * 2);
					}
					mine[count++] = answered - sent;
				}
			}
			latencies[client] = mine;
			counts[client] = count;
		}, base);
		sampler.join(10_000);
		int total = 0;
		for (int count : counts) {
			total += count;
		}
		long[] all = new long[total];
		int at = 0;
		for (int c = 0; c < clients; c++) {
			if (latencies[c] != null) {
				System.arraycopy(latencies[c], 0, all, at, counts[c]);
				at += counts[c];
			}
		}
		Arrays.sort(all);
		return new Load(total, seconds, all, failures.get(), cpu[1] - cpu[0]);
	}

	/** Runs body on clients platform threads, each with its own connection, bounded by until + 30 s. */
	static void runClients(int clients, long until, ClientBody body, URI base) throws InterruptedException {
		CountDownLatch done = new CountDownLatch(clients);
		for (int c = 0; c < clients; c++) {
			int client = c;
			Thread.ofPlatform().daemon().name("client-" + c).start(() -> {
				try (Http1 http = new Http1(base)) {
					body.run(client, http);
				}
				catch (IOException | RuntimeException ex) {
					System.err.println("client " + client + ": " + ex);
				}
				finally {
					done.countDown();
				}
			});
		}
		long bound = until == Long.MAX_VALUE ? TimeUnit.HOURS.toNanos(1)
				: Math.max(0, until - System.nanoTime()) + TimeUnit.SECONDS.toNanos(30);
		if (!done.await(bound, TimeUnit.NANOSECONDS)) {
			System.err.println("clients did not finish in time");
			System.exit(2);
		}
	}

	// ---------------------------------------------------------------- shared

	static void result(String figure, Peer peer, String figures) {
		String target = peer instanceof Peer.Ballast ? "ballast" : peer instanceof Peer.Eureka ? "eureka" : "etcd";
		System.out.println("RESULT figure=" + figure + " target=" + target + " " + figures);
	}

	static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return -1;
		}
		int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	static String millis(long nanos) {
		return nanos < 0 ? "-" : "%.2f".formatted(nanos / 1e6);
	}

	static void parkUntil(long nanos) {
		for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
