package ballast.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The probe benchmark (issue 30): one node runs N HTTP checks at a 10 s interval (2 s
 * timeout) against local targets, 70% healthy, 10% slow (answering after 500 ms), 10%
 * hanging (accepting and never answering) and 10% refusing. It alternates two phases on
 * the same N instances, so that noise hits both alike:
 *
 * <ul>
 * <li>A: the instances registered without checks;</li>
 * <li>B: the same instances registered with one check each, probed after a warm-up of one
 * interval plus the handover.</li>
 * </ul>
 * and in each prints the node's CPU (its JVM and PostgreSQL) while idle, the latency of
 * heartbeats paced at 1,000/s, the heartbeat and registration rates under a fixed set of
 * clients, and in B the probes per second and the
 * lateness p99 and max ({@code ballast_checks_lateness_seconds}). After the rounds, an
 * adversarial phase C ({@link AdversarialProbes}, {@code --adversarial-seconds}, 0 skips
 * it).
 *
 * BALLAST_TOKEN=... java bench/src/ballast/bench/ProbeLoad.java --url http://127.0.0.1:18095 --pid 1234
 */
public class ProbeLoad {

	/** Heartbeats per second in the paced figure. */
	static final int PACED_RATE = 1000;

	static final Pattern METRIC = Pattern.compile("^(\\S+?)(\\{[^}]*\\})? (\\S+)$");

	public static void main(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 0,
				BenchArgs.defaults("--url", "http://127.0.0.1:18095", "--pid", "0", "--instances", "10000", "--services",
						"100", "--rounds", "2", "--idle-seconds", "10", "--load-seconds", "15", "--clients", "16",
						"--adversarial-seconds", "30"),
				"usage: BALLAST_TOKEN=... java bench/src/ballast/bench/ProbeLoad.java [options]");
		String url = options.url("--url").toString();
		long pid = Long.parseLong(options.get("--pid"));
		int instances = options.positive("--instances");
		int services = options.positive("--services");
		int rounds = options.positive("--rounds");
		int idle = options.positive("--idle-seconds");
		int load = options.positive("--load-seconds");
		int clients = options.positive("--clients");
		int adversarial = Integer.parseInt(options.get("--adversarial-seconds"));
		String authorization = BenchArgs.authorization();
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		Targets targets = Targets.start();
		System.out.printf("targets: healthy :%d, slow (500 ms) :%d, hanging :%d, refusing :%d%n", targets.healthy,
				targets.slow, targets.hanging, targets.refusing);
		for (int round = 1; round <= rounds; round++) {
			for (boolean checks : new boolean[] { false, true }) {
				String phase = checks ? "B (checks)" : "A (no checks)";
				long began = System.nanoTime();
				register(http, url, authorization, instances, services, clients, targets, checks);
				System.out.printf("round %d %s: registered %d instances in %.1f s%n", round, phase, instances,
						(System.nanoTime() - began) / 1e9);
				if (checks) {
					// One interval for every check to be probed once, the handover and a
					// beat, then the failing checks' ejections settle.
					Thread.sleep(Duration.ofSeconds(15));
				}
				double probesBefore = metric(http, url, authorization, "ballast_checks_probes_total", null);
				double cpuBefore = ProcCpu.seconds(new long[] { pid });
				Thread.sleep(Duration.ofSeconds(idle));
				double cpu = (ProcCpu.seconds(new long[] { pid }) - cpuBefore) / idle;
				double probes = (metric(http, url, authorization, "ballast_checks_probes_total", null) - probesBefore)
						/ idle;
				String paced = pacedHeartbeats(http, url, authorization, instances, services, load);
				double heartbeats = heartbeats(http, url, authorization, instances, services, clients, load);
				double registrations = registrations(http, url, authorization, clients, load, round, checks);
				String lateness = checks ? " lateness_p99=%.0f ms lateness_max=%.0f ms".formatted(
						1000 * metric(http, url, authorization, "ballast_checks_lateness_seconds", "quantile=\"0.99\""),
						1000 * metric(http, url, authorization, "ballast_checks_lateness_seconds_max", null)) : "";
				System.out.printf(Locale.ROOT,
						"RESULT round=%d phase=%s idle_cpu=%.1f%% probes_per_s=%.0f %s heartbeats_per_s=%.0f "
								+ "registrations_per_s=%.0f%s%n",
						round, checks ? "B" : "A", 100 * cpu, probes, paced, heartbeats, registrations, lateness);
			}
		}
		if (adversarial > 0) {
			boolean met = new AdversarialProbes(http, url, authorization, instances, services, clients, targets)
				.run(adversarial);
			System.exit(met ? 0 : 1);
		}
		System.exit(0);
	}

	/** The instances, each at its target's port, with one HTTP check or none. */
	static void register(HttpClient http, String url, String authorization, int instances, int services, int clients,
			Targets targets, boolean checks) throws InterruptedException {
		AtomicInteger next = new AtomicInteger();
		AtomicInteger failures = new AtomicInteger();
		try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
			for (int c = 0; c < clients; c++) {
				pool.submit(() -> {
					for (int k = next.getAndIncrement(); k < instances; k = next.getAndIncrement()) {
						int port = targets.port(k);
						// The instance in the path: the adversarial phase tells the probes apart.
						String check = checks ? (",\"checks\":[{\"http\":\"http://127.0.0.1:%d/health/i-%d\","
								+ "\"intervalSeconds\":10,\"timeoutMillis\":2000}]").formatted(port, k) : "";
						String body = "{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":300%s}".formatted(port,
								check);
						if (send(http, url + "/v1/services/probe-%d/instances/i-%d".formatted(k % services, k), "PUT",
								body, authorization) >= 300) {
							failures.incrementAndGet();
						}
					}
				});
			}
		}
		if (failures.get() > 0) {
			System.out.println("registration failures: " + failures.get());
		}
	}

	/** Heartbeats per second to the healthy instances (k % 10 below 7), as fast as clients go. */
	static double heartbeats(HttpClient http, String url, String authorization, int instances, int services,
			int clients, int seconds) throws InterruptedException {
		AtomicLong done = new AtomicLong();
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
			for (int c = 0; c < clients; c++) {
				pool.submit(() -> {
					while (System.nanoTime() < until) {
						int k = ThreadLocalRandom.current().nextInt(instances / 10) * 10
								+ ThreadLocalRandom.current().nextInt(7);
						if (k < instances && send(http,
								url + "/v1/services/probe-%d/instances/i-%d/heartbeat".formatted(k % services, k),
								"POST", null, authorization) == 200) {
							done.incrementAndGet();
						}
					}
				});
			}
		}
		return done.get() / (double) seconds;
	}

	/**
	 * Heartbeats at a steady {@link #PACED_RATE} per second (10,000 instances renewing
	 * every 10 s), well below what the node can take: the latency from each beat's
	 * planned start (so a stall counts in full, not only for the beat that met it), p50,
	 * p99 and max. Where the closed-loop rate shows how much CPU is left, this shows
	 * whether probing delays the heartbeats a node really gets.
	 */
	static String pacedHeartbeats(HttpClient http, String url, String authorization, int instances, int services,
			int seconds) throws InterruptedException {
		int count = PACED_RATE * seconds;
		long[] latencies = new long[count];
		AtomicInteger failures = new AtomicInteger();
		long start = System.nanoTime();
		try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
			for (int n = 0; n < count; n++) {
				long planned = start + n * (1_000_000_000L / PACED_RATE);
				long wait = planned - System.nanoTime();
				if (wait > 0) {
					Thread.sleep(Duration.ofNanos(wait));
				}
				int beat = n;
				pool.submit(() -> {
					int k = ThreadLocalRandom.current().nextInt(instances / 10) * 10
							+ ThreadLocalRandom.current().nextInt(7);
					if (k >= instances || send(http,
							url + "/v1/services/probe-%d/instances/i-%d/heartbeat".formatted(k % services, k), "POST",
							null, authorization) != 200) {
						failures.incrementAndGet();
					}
					latencies[beat] = System.nanoTime() - planned;
				});
			}
		}
		Arrays.sort(latencies);
		return String.format(Locale.ROOT, "paced_%d_per_s_p50=%.1f ms p99=%.1f ms max=%.0f ms failures=%d", PACED_RATE,
				latencies[count / 2] / 1e6, latencies[count * 99 / 100] / 1e6, latencies[count - 1] / 1e6,
				failures.get());
	}

	/** New registrations per second in a service of their own, as fast as clients go. */
	static double registrations(HttpClient http, String url, String authorization, int clients, int seconds,
			int round, boolean checks) throws InterruptedException {
		AtomicLong done = new AtomicLong();
		AtomicInteger next = new AtomicInteger();
		long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		String service = "probe-reg-%d-%s".formatted(round, checks ? "b" : "a");
		try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
			for (int c = 0; c < clients; c++) {
				pool.submit(() -> {
					while (System.nanoTime() < until) {
						int k = next.getAndIncrement();
						if (send(http, url + "/v1/services/%s/instances/r-%d".formatted(service, k), "PUT",
								"{\"address\":\"10.9.%d.%d\",\"port\":8080,\"leaseTtlSeconds\":300}".formatted(k / 250 % 250,
										k % 250),
								authorization) < 300) {
							done.incrementAndGet();
						}
					}
				});
			}
		}
		return done.get() / (double) seconds;
	}

	static int send(HttpClient http, String url, String method, String body, String authorization) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
			.timeout(Duration.ofSeconds(10))
			.header("Authorization", authorization)
			.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
					: HttpRequest.BodyPublishers.ofString(body));
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
		}
		catch (IOException ex) {
			return 599;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 599;
		}
	}

	/** A GET's body ("" when it fails). */
	static String get(HttpClient http, String url, String authorization) {
		try {
			return http.send(HttpRequest.newBuilder(URI.create(url))
				.timeout(Duration.ofSeconds(10))
				.header("Authorization", authorization)
				.build(), HttpResponse.BodyHandlers.ofString()).body();
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

	/** The sum of a metric's samples whose labels hold {@code label} (all when null). */
	static double metric(HttpClient http, String url, String authorization, String name, String label)
			throws IOException, InterruptedException {
		String text = http.send(HttpRequest.newBuilder(URI.create(url + "/actuator/prometheus"))
			.header("Authorization", authorization)
			.build(), HttpResponse.BodyHandlers.ofString()).body();
		double sum = 0;
		for (String line : text.split("\n")) {
			Matcher matched = METRIC.matcher(line);
			if (matched.matches() && matched.group(1).equals(name)
					&& (label == null || (matched.group(2) != null && matched.group(2).contains(label)))) {
				sum += Double.parseDouble(matched.group(3));
			}
		}
		return sum;
	}

	/**
	 * The probes' targets, in this process; the healthy and the slow ones note when each
	 * probe of {@code /health/i-<k>} arrives while {@code arrivals} records.
	 */
	record Targets(int healthy, int slow, int hanging, int refusing, Arrivals arrivals) {

		static Targets start() throws IOException {
			Arrivals arrivals = new Arrivals();
			ServerSocket healthy = server(0, arrivals);
			ServerSocket slow = server(500, arrivals);
			ServerSocket hanging = new ServerSocket(0, 4096, InetAddress.getLoopbackAddress());
			List<Socket> held = new ArrayList<>();
			Thread.ofPlatform().daemon().start(() -> {
				while (true) {
					try {
						Socket socket = hanging.accept();
						synchronized (held) {
							held.add(socket);
							// Keep the connections a while, as a stuck backend does; let
							// the oldest go so the benchmark holds no more than it needs.
							if (held.size() > 5000) {
								held.removeFirst().close();
							}
						}
					}
					catch (IOException ex) {
						return;
					}
				}
			});
			int refusing;
			try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				refusing = probe.getLocalPort();
			}
			return new Targets(healthy.getLocalPort(), slow.getLocalPort(), hanging.getLocalPort(), refusing,
					arrivals);
		}

		/**
		 * A target that answers every request with 200 "UP" and closes, after a delay when
		 * one is given. One platform thread accepts and answers, and a timer writes the
		 * delayed answers: the targets stand for instances on other machines, so they
		 * should take as little of this machine's CPU from the node as they can.
		 */
		static ServerSocket server(long delayMillis, Arrivals arrivals) throws IOException {
			ServerSocket server = new ServerSocket(0, 4096, InetAddress.getLoopbackAddress());
			ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
			byte[] answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nUP"
				.getBytes(StandardCharsets.ISO_8859_1);
			// Used by the accepting thread alone.
			byte[] request = new byte[4096];
			acceptEach(server, socket -> {
				long arrived = System.currentTimeMillis();
				try {
					socket.setSoTimeout(1000);
					arrivals.note(request, readHead(socket, request), arrived);
					if (delayMillis == 0) {
						answer(socket, answer);
					}
					else {
						later.schedule(() -> answer(socket, answer), delayMillis, TimeUnit.MILLISECONDS);
					}
				}
				catch (IOException ex) {
					close(socket);
				}
			});
			return server;
		}

		/**
		 * Hands each connection {@code server} accepts to {@code each}, on one platform
		 * thread, until the server is closed.
		 */
		static void acceptEach(ServerSocket server, Consumer<Socket> each) {
			Thread.ofPlatform().daemon().start(() -> {
				while (true) {
					try {
						each.accept(server.accept());
					}
					catch (IOException ex) {
						return;
					}
				}
			});
		}

		/**
		 * Reads up to the end of a request's head (the prober sends no body).
		 * @return the bytes read
		 */
		private static int readHead(Socket socket, byte[] buffer) throws IOException {
			int filled = 0;
			while (filled < buffer.length) {
				int read = socket.getInputStream().read(buffer, filled, buffer.length - filled);
				if (read < 0) {
					return filled;
				}
				filled += read;
				for (int k = Math.max(3, filled - read); k < filled; k++) {
					if (buffer[k] == '\n' && buffer[k - 1] == '\r' && buffer[k - 2] == '\n' && buffer[k - 3] == '\r') {
						return filled;
					}
				}
			}
			return filled;
		}

		static void answer(Socket socket, byte[] answer) {
			try {
				socket.getOutputStream().write(answer);
			}
			catch (IOException ex) {
				// the prober gave up first
			}
			close(socket);
		}

		static void close(Socket socket) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// nothing left to do with it
			}
		}

		/** Instance k's target: 70% healthy, 10% each slow, hanging, refusing. */
		int port(int k) {
			return switch (k % 10) {
				case 7 -> slow;
				case 8 -> hanging;
				case 9 -> refusing;
				default -> healthy;
			};
		}

	}

	/**
	 * When each probe of an instance's {@code /health/i-<k>} arrived, while on: what the
	 * adversarial phase reads the other checks' lateness from.
	 */
	static final class Arrivals {

		private static final Pattern PATH = Pattern.compile("^GET /health/i-(\\d+) ");

		volatile boolean on;

		final ConcurrentLinkedQueue<long[]> seen = new ConcurrentLinkedQueue<>();

		void note(byte[] head, int length, long arrived) {
			if (!on) {
				return;
			}
			Matcher path = PATH.matcher(new String(head, 0, Math.min(length, 64), StandardCharsets.ISO_8859_1));
			if (path.find()) {
				seen.add(new long[] { Long.parseLong(path.group(1)), arrived });
			}
		}

	}

}
