package ballast.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.envoyproxy.envoy.config.core.v3.Node;
import io.envoyproxy.envoy.service.discovery.v3.AggregatedDiscoveryServiceGrpc;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryRequest;
import io.envoyproxy.envoy.service.discovery.v3.DiscoveryResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;

/**
 * ADS fan-out benchmark for Ballast's xDS server, beside the SSE one
 * ({@code WatchLatency}): opens N ADS streams, each on a connection of its own unless
 * {@code --connections} says fewer (as grpc-java clients do, one per process), that
 * subscribe to one service's endpoints and ACK every response as a grpc-java client does;
 * then changes instance weights at a fixed rate and measures, for every (stream, change)
 * pair, how long after the write was acknowledged the stream had a response at or past
 * its revision (0 when it came first). With {@code --server-pid} it measures the server's
 * heap per stream after a full GC.
 *
 * <p>
 * Not JDK-only like its siblings: it needs grpc-java and Envoy's API on the class path,
 * which {@code bench/watchers.sh} takes from the server's own dependencies
 * ({@code ./mvnw dependency:build-classpath}). A slow stream may be sent only the latest
 * state (the server coalesces what a client has not taken): a revision it never saw is
 * counted as coalesced, and its latency is that of the first response past it.
 *
 * <pre>
 * java -cp CLASSPATH bench/src/ballast/bench/AdsLatency.java --url http://127.0.0.1:8080 --xds 127.0.0.1:18000
 *      [--streams 1000] [--rate 20] [--warmup 2] [--seconds 10] [--service bench-ads] [--server-pid PID]
 * </pre>
 *
 * Exit status 0 when every stream opened and had the last revision, 1 otherwise.
 */
public class AdsLatency {

	private static final String ENDPOINTS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";

	private static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*(\\d+)");

	private static final int INSTANCES = 4;

	public static void main(String[] args) throws Exception {
		Map<String, String> options = options(args);
		String url = options.get("url");
		String xds = options.get("xds");
		int streams = Integer.parseInt(options.getOrDefault("streams", "1000"));
		int rate = Integer.parseInt(options.getOrDefault("rate", "20"));
		int warmup = Integer.parseInt(options.getOrDefault("warmup", "2"));
		int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
		String service = options.getOrDefault("service", "bench-ads");
		int connections = Integer.parseInt(options.getOrDefault("connections", Integer.toString(streams)));
		long serverPid = Long.parseLong(options.getOrDefault("server-pid", "0"));
		String token = System.getenv("BALLAST_TOKEN");
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
		System.out.printf(Locale.ROOT,
				"AdsLatency: %d ADS streams over %d connections on the endpoints of %s at %s; then %d weight changes/s, "
						+ "%d s warm-up + %d s measured%n",
				streams, connections, service, xds, rate, warmup, seconds);

		for (int k = 0; k < INSTANCES; k++) {
			send(http, token, "PUT", url + "/v1/services/" + service + "/instances/i-" + k,
					"{\"address\":\"10.0.0.%d\",\"port\":8080,\"weight\":10000,\"leaseTtlSeconds\":300}".formatted(k + 1));
		}
		send(http, token, "PATCH", url + "/v1/services/" + service, "{\"maxUnroutable\":\"100%\"}");

		double heapBefore = serverPid > 0 ? heapAfterFullGc(http, url, token, serverPid) : Double.NaN;
		String[] hostPort = xds.split(":");
		ManagedChannel[] channels = new ManagedChannel[connections];
		for (int c = 0; c < connections; c++) {
			channels[c] = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1])).usePlaintext().build();
		}
		Stream[] opened = new Stream[streams];
		CountDownLatch first = new CountDownLatch(streams);
		long openStart = System.nanoTime();
		for (int i = 0; i < streams; i++) {
			opened[i] = new Stream(i, channels[i % connections], token, service, first);
			// Paced like the SSE benchmark's watchers: at most 500 new connections a second.
			parkUntil(openStart + i * TimeUnit.SECONDS.toNanos(1) / 500);
		}
		boolean allOpened = first.await(60, TimeUnit.SECONDS);
		System.out.printf(Locale.ROOT, "opened %d of %d streams (first response received) in %.2f s%n",
				streams - first.getCount(), streams, (System.nanoTime() - openStart) / 1e9);
		double heapAfter = Double.NaN;
		if (serverPid > 0) {
			Thread.sleep(2000);
			heapAfter = heapAfterFullGc(http, url, token, serverPid);
		}

		int total = rate * (warmup + seconds);
		double serverCpuBefore = Double.NaN;
		double clientCpuBefore = Double.NaN;
		long[] revisionOf = new long[total];
		long[] ackedAt = new long[total];
		long period = TimeUnit.SECONDS.toNanos(1) / rate;
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
		for (int j = 0; j < total; j++) {
			parkUntil(start + j * period);
			if (j == warmup * rate) {
				serverCpuBefore = cpuSeconds(serverPid);
				clientCpuBefore = cpuSeconds(ProcessHandle.current().pid());
			}
			int weight = 1 + (j / INSTANCES) % 9999;
			String body = send(http, token, "PATCH", url + "/v1/services/" + service + "/instances/i-" + j % INSTANCES,
					"{\"weight\":" + weight + "}");
			ackedAt[j] = System.nanoTime();
			Matcher revision = REVISION.matcher(body);
			revisionOf[j] = revision.find() ? Long.parseLong(revision.group(1)) : -1;
		}
		long last = revisionOf[total - 1];
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline && Arrays.stream(opened).anyMatch(s -> s.latest() < last)) {
			Thread.sleep(20);
		}
		double serverCpu = cpuSeconds(serverPid) - serverCpuBefore;
		double clientCpu = cpuSeconds(ProcessHandle.current().pid()) - clientCpuBefore;

		List<Long> latencies = new ArrayList<>();
		long coalesced = 0;
		int behind = 0;
		for (Stream stream : opened) {
			if (stream.latest() < last) {
				behind++;
			}
			for (int j = warmup * rate; j < total; j++) {
				Long at = stream.received.get(revisionOf[j]);
				if (at == null) {
					coalesced++;
					at = stream.firstPast(revisionOf[j]);
				}
				if (at != null) {
					latencies.add(Math.max(0, at - ackedAt[j]));
				}
			}
		}
		for (ManagedChannel channel : channels) {
			channel.shutdownNow();
		}
		long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
		System.out.printf(Locale.ROOT,
				"write -> EDS pushed over %d (stream, change) pairs: p50 %.2f ms, p99 %.2f ms, max %.2f ms; "
						+ "%d revisions coalesced (a newer one sent instead), %d streams behind the last revision%n",
				sorted.length, percentile(sorted, 50), percentile(sorted, 99),
				sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6, coalesced, behind);
		long pushes = (long) streams * seconds * rate - coalesced;
		System.out.printf(Locale.ROOT,
				"CPU over the measured changes: server JVM %.1f s (%.0f µs per push and its ACK, %d pushes), this client %.1f s%n",
				serverCpu, serverCpu * 1e6 / pushes, pushes, clientCpu);
		if (serverPid > 0) {
			System.out.printf(Locale.ROOT, "heap per ADS stream: %.1f KiB (%.1f MB -> %.1f MB after a full GC)%n",
					(heapAfter - heapBefore) / streams / 1024, heapBefore / 1e6, heapAfter / 1e6);
		}
		System.out.println("RESULT ads streams=%d p50_ms=%.2f p99_ms=%.2f heap_kib_per_stream=%.1f".formatted(streams,
				percentile(sorted, 50), percentile(sorted, 99), (heapAfter - heapBefore) / streams / 1024));
		System.exit(allOpened && behind == 0 ? 0 : 1);
	}

	/** One ADS stream on a connection of its own, ACKing every response. */
	static final class Stream implements StreamObserver<DiscoveryResponse> {

		final Map<Long, Long> received = new ConcurrentHashMap<>();

		private final StreamObserver<DiscoveryRequest> requests;

		private final String service;

		private final CountDownLatch first;

		private volatile long latest = -1;

		Stream(int i, ManagedChannel channel, String token, String service, CountDownLatch first) {
			this.service = service;
			this.first = first;
			this.requests = AggregatedDiscoveryServiceGrpc.newStub(channel).streamAggregatedResources(this);
			Node node = Node.newBuilder()
				.setId("bench-ads-" + i)
				.setMetadata(Struct.newBuilder()
					.putFields("ballast_token", Value.newBuilder().setStringValue(token).build()))
				.build();
			synchronized (this) {
				requests.onNext(DiscoveryRequest.newBuilder()
					.setNode(node)
					.setTypeUrl(ENDPOINTS)
					.addResourceNames(service)
					.build());
			}
		}

		@Override
		public void onNext(DiscoveryResponse response) {
			long now = System.nanoTime();
			String version = response.getVersionInfo();
			long revision = Long.parseLong(version.substring(version.lastIndexOf(':') + 1));
			received.putIfAbsent(revision, now);
			latest = Math.max(latest, revision);
			synchronized (this) {
				requests.onNext(DiscoveryRequest.newBuilder()
					.setTypeUrl(ENDPOINTS)
					.setVersionInfo(version)
					.setResponseNonce(response.getNonce())
					.addResourceNames(service)
					.build());
			}
			first.countDown();
		}

		long latest() {
			return latest;
		}

		/** When the first response past {@code revision} came, or null. */
		Long firstPast(long revision) {
			return received.entrySet()
				.stream()
				.filter(e -> e.getKey() > revision)
				.map(Map.Entry::getValue)
				.min(Long::compare)
				.orElse(null);
		}

		@Override
		public void onError(Throwable cause) {
			// The channels are shut down at the end of the run.
		}

		@Override
		public void onCompleted() {
		}

	}

	private static String send(HttpClient http, String token, String method, String url, String json)
			throws Exception {
		HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.header("Authorization", "Bearer " + token)
			.method(method, HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() / 100 != 2) {
			throw new IllegalStateException(method + " " + url + " answered " + response.statusCode() + ": "
					+ response.body());
		}
		return response.body();
	}

	/** A process's CPU time (user + system) in seconds, from /proc; NaN without one. */
	private static double cpuSeconds(long pid) {
		if (pid <= 0) {
			return Double.NaN;
		}
		try {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			// utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
			return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) CLOCK_TICKS;
		}
		catch (IOException ex) {
			return Double.NaN;
		}
	}

	/** The kernel's clock ticks per second ({@code getconf CLK_TCK}). */
	private static final long CLOCK_TICKS = clockTicks();

	private static long clockTicks() {
		try {
			Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
			String ticks = new String(getconf.getInputStream().readAllBytes()).trim();
			getconf.waitFor();
			return Long.parseLong(ticks);
		}
		catch (IOException | RuntimeException | InterruptedException ex) {
			return 100;
		}
	}

	/** Used heap after a full GC, as the server's own metrics report it. */
	private static double heapAfterFullGc(HttpClient http, String url, String token, long pid) throws Exception {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run").redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		if (!gc.waitFor(60, TimeUnit.SECONDS) || gc.exitValue() != 0) {
			throw new IllegalStateException("jcmd " + pid + " GC.run failed");
		}
		Thread.sleep(500);
		HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(url + "/actuator/prometheus"))
			.header("Authorization", "Bearer " + token)
			.build(), HttpResponse.BodyHandlers.ofString());
		return metrics.body()
			.lines()
			.filter(l -> l.startsWith("jvm_memory_used_bytes{") && l.contains("area=\"heap\""))
			.mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
			.sum();
	}

	private static double percentile(long[] sorted, int p) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
	}

	private static Map<String, String> options(String[] args) {
		Map<String, String> options = new ConcurrentHashMap<>();
		for (int i = 0; i + 1 < args.length; i += 2) {
			if (!args[i].startsWith("--")) {
				throw new IllegalArgumentException("options are --name value; got " + args[i]);
			}
			options.put(args[i].substring(2), args[i + 1]);
		}
		if (!options.containsKey("url") || !options.containsKey("xds")) {
			System.err.println("usage: AdsLatency --url http://HOST:PORT --xds HOST:PORT [--streams N] [--rate N] "
					+ "[--connections N] [--warmup S] [--seconds S] [--service NAME] [--server-pid PID]");
			System.exit(2);
		}
		return options;
	}

	private static void parkUntil(long nanos) {
		for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
