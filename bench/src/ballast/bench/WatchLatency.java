package ballast.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Watch-stream fan-out benchmark for Ballast: opens N server-sent event streams on one
 * service with a raw non-blocking client (a few selector threads, no thread per stream),
 * then changes instance weights at a fixed rate from one writer and measures, for every
 * (watcher, change) pair, how long after the write the watcher had the event.
 *
 * <p>
 * Run with {@code java bench/src/ballast/bench/WatchLatency.java --help}. Only the JDK is used. With
 * {@code --server-pid} (a JVM on this machine) it also measures the server's heap per
 * open stream after a full GC, and its CPU and RSS during the measured window.
 *
 * <p>
 * The parts are in sibling files, which the source launcher (JEP 458) compiles when this
 * one names them: {@link WatchOptions} (the command line), {@link WatchClient},
 * {@link SelectorLoop}, {@link WatchStream} and {@link Watch} (the streams), {@link WeightWrite} (one change),
 * {@link ServerProbe} and {@link ProbeWindow} (the server seen from outside) and
 * {@link WatchReport} (the figures). Their names must not be those of another top-level
 * class in this directory ({@code Populate}, {@code Registrations}).
 *
 * <p>
 * Exit status: 0 when every watcher opened and received every change exactly in order,
 * 1 when anything failed, 2 on bad arguments.
 */
public class WatchLatency {

	static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*(\\d+)");

	static final Pattern WEIGHT = Pattern.compile("\"weight\"\\s*:\\s*(\\d+)");

	// ---------------------------------------------------------------- main

	public static void main(String[] args) throws Exception {
		WatchOptions options = WatchOptions.parse(args);
		int warmupWrites = options.rate() * options.warmupSeconds();
		int totalWrites = warmupWrites + options.rate() * options.seconds();
		System.out.printf(Locale.ROOT,
				"WatchLatency: %d watchers on service %s at %s (opened at <= %d/s by %d selector threads); "
						+ "then %d weight changes/s over %d instances, %d s warm-up + %d s measured%n",
				options.watchers(), options.service(), options.url(), options.openRate(), options.selectors(), options.rate(),
				options.instances(), options.warmupSeconds(), options.seconds());

		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		register(options, http);

		ServerProbe probe = options.serverPid() > 0 ? new ServerProbe(options, http) : null;
		Map<String, long[]> classesBefore = probe == null ? null : probe.histogram();
		double heapBefore = probe == null ? Double.NaN : probe.heapAfterFullGc();

		// Room for every write plus a few revisions from elsewhere (none are expected).
		WatchClient client = new WatchClient(options, totalWrites + 256);
		openAll(options, client);
		int opened = client.ready.get();

		double heapAfter = Double.NaN;
		Map<String, long[]> classesAfter = null;
		if (probe != null) {
			// Idle: the snapshots are written and nothing is queued.
			Thread.sleep(2000);
			classesAfter = probe.histogram();
			heapAfter = probe.heapAfterFullGc();
		}

		WeightWrite[] writes = new WeightWrite[totalWrites];
		ProbeWindow window = probe == null ? null : new ProbeWindow();
		write(options, http, writes, warmupWrites, probe, window);
		long lastRevision = Arrays.stream(writes).mapToLong(w -> w.revision).max().orElse(-1);
		boolean drained = drain(options, client, lastRevision);
		if (window != null) {
			window.end(probe);
		}

		client.stopping = true;
		for (SelectorLoop loop : client.loops) {
			loop.join();
		}
		for (Watch watch : client.watches) {
			try {
				watch.channel.close();
			}
			catch (IOException ex) {
				// The run is over.
			}
		}

		boolean ok = WatchReport.report(options, client, writes, opened, drained, heapBefore, heapAfter, probe, window);
		if (probe != null) {
			System.out.print(ServerProbe.growth(classesBefore, classesAfter, opened));
		}
		System.exit(ok ? 0 : 1);
	}

	private static void register(WatchOptions options, HttpClient http) throws IOException, InterruptedException {
		for (int k = 0; k < options.instances(); k++) {
			URI uri = URI.create(options.writeUrl() + "/v1/services/" + options.service() + "/instances/i-" + k);
			// The longest lease the node accepts: no lease may lapse during the run, since
			// that would be a change (and an event) the writer did not make.
			String body = "{\"address\":\"10.0.0.%d\",\"port\":8080,\"weight\":10000,\"leaseTtlSeconds\":300}"
				.formatted(k + 1);
			HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.header("Authorization", options.authorization())
				.PUT(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 201 && response.statusCode() != 200) {
				System.err.println("error: PUT " + uri + " answered " + response.statusCode() + ": " + response.body());
				System.exit(1);
			}
		}
		// The writer lowers weights at will, which the guard would refuse once its budget
		// is used: the budget is opened (the guard still runs on every write), since this
		// benchmark measures delivery, not the guard.
		URI service = URI.create(options.writeUrl() + "/v1/services/" + options.service());
		HttpResponse<String> opened = http.send(HttpRequest.newBuilder(service)
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.header("Authorization", options.authorization())
			.method("PATCH", HttpRequest.BodyPublishers.ofString("{\"maxUnroutable\":\"100%\"}"))
			.build(), HttpResponse.BodyHandlers.ofString());
		if (opened.statusCode() != 200) {
			System.err.println("error: PATCH " + service + " answered " + opened.statusCode() + ": " + opened.body());
			System.exit(1);
		}
	}

	private static void openAll(WatchOptions options, WatchClient client) throws IOException, InterruptedException {
		for (int s = 0; s < options.selectors(); s++) {
			SelectorLoop loop = new SelectorLoop(client, s);
			client.loops.add(loop);
			loop.thread.start();
		}
		InetSocketAddress address = new InetSocketAddress(options.url().getHost(), options.url().getPort());
		byte[] request = ("GET /v1/services/" + options.service() + "/watch HTTP/1.1\r\n" + "Host: "
				+ options.url().getAuthority() + "\r\n" + "Authorization: " + options.authorization() + "\r\n"
				+ "Accept: text/event-stream\r\n"
				+ "User-Agent: ballast-bench-watch-latency\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		long period = TimeUnit.SECONDS.toNanos(1) / options.openRate();
		long started = System.nanoTime();
		for (int i = 0; i < options.watchers(); i++) {
			// Paced, so the node's accept queue (Tomcat's accept-count, 100) is never overrun.
			parkUntil(started + i * period);
			SocketChannel channel = SocketChannel.open();
			Watch watch = new Watch(i, channel, ByteBuffer.wrap(request), client);
			client.watches.add(watch);
			try {
				channel.configureBlocking(false);
				channel.connect(address);
			}
			catch (IOException ex) {
				client.fail(watch, "open-failed", ex.toString());
				channel.close();
				continue;
			}
			client.loops.get(i % client.loops.size()).add(watch);
		}
		long connectsDone = System.nanoTime();
		long deadline = connectsDone + TimeUnit.SECONDS.toNanos(options.openTimeoutSeconds());
		while (client.ready.get() + client.failed.get() < options.watchers() && System.nanoTime() < deadline) {
			Thread.sleep(10);
		}
		long lastReady = client.watches.stream()
			.filter(Watch::ready)
			.mapToLong(w -> w.readyNanos)
			.max()
			.orElse(System.nanoTime());
		int ready = client.ready.get();
		System.out.printf(Locale.ROOT,
				"opened %d of %d watchers (snapshot received) in %.2f s (connects issued in %.2f s); %d failed%s%n",
				ready, options.watchers(), (lastReady - started) / 1e9, (connectsDone - started) / 1e9,
				client.failed.get(), ready + client.failed.get() < options.watchers()
						? ", %d still without a snapshot after %d s".formatted(
								options.watchers() - ready - client.failed.get(), options.openTimeoutSeconds())
						: "");
	}

	/**
	 * One writer thread, open loop: change j is sent at start + j / rate whatever the
	 * earlier ones took (a slow answer does not hold back the next change; the client opens
	 * another connection for it), so a slow node is not given a lighter load. Returns once
	 * every change is answered.
	 */
	private static void write(WatchOptions options, HttpClient http, WeightWrite[] writes, int warmupWrites, ServerProbe probe,
			ProbeWindow window) {
		long period = TimeUnit.SECONDS.toNanos(1) / options.rate();
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
		long lastRenewal = start - 2 * RENEW_EVERY_NANOS;
		List<CompletableFuture<?>> answers = new ArrayList<>(writes.length);
		for (int j = 0; j < writes.length; j++) {
			WeightWrite write = new WeightWrite();
			writes[j] = write;
			write.measured = j >= warmupWrites;
			write.scheduledNanos = start + j * period;
			if (write.scheduledNanos - lastRenewal > RENEW_EVERY_NANOS) {
				// A lapsed lease would be a change the writer did not make; a heartbeat of a
				// healthy instance makes none.
				renewLeases(options, http);
				lastRenewal = write.scheduledNanos;
			}
			parkUntil(write.scheduledNanos);
			if (j == warmupWrites && probe != null) {
				window.begin(probe);
			}
			int k = j % options.instances();
			// Each round of an instance has its own weight (registered at 10000), so every
			// PATCH is a real change, a new revision and one event, even when two PATCHes of
			// one instance overtake each other.
			int weight = 1 + (j / options.instances()) % 9999;
			URI uri = URI.create(options.writeUrl() + "/v1/services/" + options.service() + "/instances/i-" + k);
			HttpRequest request = HttpRequest.newBuilder(uri)
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.header("Authorization", options.authorization())
				.method("PATCH", HttpRequest.BodyPublishers.ofString("{\"weight\":" + weight + "}"))
				.build();
			write.sentNanos = System.nanoTime();
			answers.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((response, ex) -> {
				write.ackedNanos = System.nanoTime();
				if (ex != null) {
					write.failure = "PATCH %s: %s".formatted(uri, ex);
					return;
				}
				Matcher revision = REVISION.matcher(response.body());
				Matcher acked = WEIGHT.matcher(response.body());
				if (response.statusCode() != 200) {
					write.failure = "PATCH %s: %d %s".formatted(uri, response.statusCode(), response.body());
				}
				else if (!revision.find() || !acked.find() || Integer.parseInt(acked.group(1)) != weight) {
					write.failure = "PATCH %s: no revision or not weight %d in %s".formatted(uri, weight,
							response.body());
				}
				else {
					write.revision = Long.parseLong(revision.group(1));
				}
			}));
		}
		for (CompletableFuture<?> answer : answers) {
			try {
				answer.join();
			}
			catch (RuntimeException ex) {
				// Recorded as the write's failure.
			}
		}
	}

	static final long RENEW_EVERY_NANOS = TimeUnit.SECONDS.toNanos(60);

	private static void renewLeases(WatchOptions options, HttpClient http) {
		for (int k = 0; k < options.instances(); k++) {
			URI uri = URI.create(options.writeUrl() + "/v1/services/" + options.service() + "/instances/i-" + k + "/heartbeat");
			try {
				http.send(HttpRequest.newBuilder(uri)
					.timeout(Duration.ofSeconds(10))
					.header("Authorization", options.authorization())
					.POST(HttpRequest.BodyPublishers.noBody())
					.build(), HttpResponse.BodyHandlers.discarding());
			}
			catch (IOException ex) {
				// The lease is five minutes long; the next renewal may well succeed.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
	}

	/** Waits until every open watcher has the last acknowledged revision, or the drain time is up. */
	private static boolean drain(WatchOptions options, WatchClient client, long lastRevision) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.drainSeconds());
		while (System.nanoTime() < deadline) {
			boolean all = true;
			for (Watch watch : client.watches) {
				if (watch.ready() && !watch.closed && watch.lastId < lastRevision) {
					all = false;
					break;
				}
			}
			if (all) {
				return true;
			}
			Thread.sleep(20);
		}
		return false;
	}

	private static void parkUntil(long nanos) {
		for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
