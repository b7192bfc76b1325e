package ballast.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * Phase C of the probe benchmark (issue 40): a tenth of the checks turned against the node.
 * The instances k % 10 == 9, which live in ten services of their own (probe-9, probe-19,
 * ...: one registrant's), are registered again with a check every 1 s with a 900 ms
 * timeout, aimed half at a server that starts a TLS handshake record of 16,000 bytes and
 * sends one byte of it every 0.7 s, half at a listener that never accepts (its backlog
 * full, so connections wait in SYN-SENT). Together they would hold about 900 probe slots
 * at once, beyond the node's 512. Meanwhile:
 * <ul>
 * <li>the other checks' lateness is read where their probes arrive: the healthy and slow
 * targets note when each probe of {@code /health/i-<k>} comes, and a check's due times
 * are the node's grid, its interval offset by {@link #phase} of its key (the node's
 * {@code ProbeOwners.phase}, copied here: a wrong copy would show as lateness spread over
 * the whole interval). Probes the node skipped do not arrive and are counted as
 * missing;</li>
 * <li>a canary in a service of its own, probed every second, starts answering 500 halfway
 * through; the time until its instance reads {@code CRITICAL} is taken.</li>
 * </ul>
 * Target: the others' lateness p99 below 1 s, and the canary critical within two of its
 * intervals (2 s).
 */
final class AdversarialProbes {

	/** The other checks' interval (the rounds' checks). */
	private static final long INTERVAL_MILLIS = 10_000;

	private final HttpClient http;

	private final String url;

	private final String authorization;

	private final int instances;

	private final int services;

	private final int clients;

	private final ProbeLoad.Targets targets;

	AdversarialProbes(HttpClient http, String url, String authorization, int instances, int services, int clients,
			ProbeLoad.Targets targets) {
		this.http = http;
		this.url = url;
		this.authorization = authorization;
		this.instances = instances;
		this.services = services;
		this.clients = clients;
		this.targets = targets;
	}

	/** Runs the phase for {@code seconds} of measurement; whether both targets were met. */
	boolean run(int seconds) throws Exception {
		int trickling = trickling();
		int neverAccepting = neverAccepting();
		Canary canary = Canary.start();
		System.out.printf("phase C targets: trickling TLS :%d, never accepting :%d, canary :%d%n", trickling,
				neverAccepting, canary.port());
		long began = System.nanoTime();
		registerAdversaries(trickling, neverAccepting);
		register("probe-canary", "canary", canary.port(),
				"{\"http\":\"http://127.0.0.1:%d/health\",\"intervalSeconds\":1,\"timeoutMillis\":300}"
					.formatted(canary.port()));
		System.out.printf("phase C: registered %d adversarial checks and the canary in %.1f s%n",
				adversaries().size(), (System.nanoTime() - began) / 1e9);
		// The handover, an interval of the others' checks and the adversaries' ejections.
		Thread.sleep(Duration.ofSeconds(15));
		if (canary.hits.get() == 0) {
			System.out.println("phase C: the canary was never probed");
		}
		double shedBefore = ProbeLoad.metric(http, url, authorization, "ballast_checks_shed_total", null);
		targets.arrivals().seen.clear();
		targets.arrivals().on = true;
		long windowStart = System.nanoTime();
		Thread.sleep(Duration.ofSeconds(seconds / 2));
		canary.status.set(500);
		long failed = System.nanoTime();
		long criticalAfter = -1;
		while (System.nanoTime() - failed < Duration.ofSeconds(30).toNanos()) {
			if (ProbeLoad.get(http, url + "/v1/services/probe-canary/instances/canary", authorization)
				.contains("\"health\":\"CRITICAL\"")) {
				criticalAfter = (System.nanoTime() - failed) / 1_000_000;
				break;
			}
			Thread.sleep(50);
		}
		long left = Duration.ofSeconds(seconds).toNanos() - (System.nanoTime() - windowStart);
		if (left > 0) {
			Thread.sleep(Duration.ofNanos(left));
		}
		targets.arrivals().on = false;
		double window = (System.nanoTime() - windowStart) / 1e9;
		double shed = ProbeLoad.metric(http, url, authorization, "ballast_checks_shed_total", null) - shedBefore;
		long[] lateness = lateness();
		long others = IntStream.range(0, instances).filter(k -> k % 10 <= 7).count();
		double expected = others * window * 1000 / INTERVAL_MILLIS;
		long p50 = lateness.length == 0 ? -1 : lateness[lateness.length / 2];
		long p99 = lateness.length == 0 ? -1 : lateness[lateness.length * 99 / 100];
		long max = lateness.length == 0 ? -1 : lateness[lateness.length - 1];
		boolean met = p99 >= 0 && p99 < 1000 && criticalAfter >= 0 && criticalAfter <= 2000;
		System.out.printf(Locale.ROOT,
				"RESULT phase=C others_lateness_p50=%d ms p99=%d ms max=%d ms others_probes=%d of %.0f due "
						+ "canary_critical_after=%d ms node_shed_per_s=%.0f node_lateness_p99=%.0f ms %s%n",
				p50, p99, max, lateness.length, expected, criticalAfter, shed / window,
				1000 * ProbeLoad.metric(http, url, authorization, "ballast_checks_lateness_seconds",
						"quantile=\"0.99\""),
				met ? "target met" : "TARGET MISSED");
		return met;
	}

	/** The instances turned against the node: k % 10 == 9. */
	private List<Integer> adversaries() {
		List<Integer> chosen = new ArrayList<>();
		for (int k = 9; k < instances; k += 10) {
			chosen.add(k);
		}
		return chosen;
	}

	private void registerAdversaries(int trickling, int neverAccepting) throws InterruptedException {
		AtomicInteger next = new AtomicInteger();
		List<Integer> chosen = adversaries();
		try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
			for (int c = 0; c < clients; c++) {
				pool.submit(() -> {
					for (int n = next.getAndIncrement(); n < chosen.size(); n = next.getAndIncrement()) {
						int k = chosen.get(n);
						boolean tls = (k / 10) % 2 == 0;
						int port = tls ? trickling : neverAccepting;
						String check = tls
								? "{\"http\":\"https://127.0.0.1:%d/health\",\"tlsSkipVerify\":true,\"intervalSeconds\":1,\"timeoutMillis\":900}"
									.formatted(port)
								: "{\"tcp\":\"127.0.0.1:%d\",\"intervalSeconds\":1,\"timeoutMillis\":900}".formatted(port);
						register("probe-" + (k % services), "i-" + k, port, check);
					}
				});
			}
		}
	}

	private void register(String service, String id, int port, String check) {
		int status = ProbeLoad.send(http, url + "/v1/services/%s/instances/%s".formatted(service, id), "PUT",
				"{\"address\":\"127.0.0.1\",\"port\":%d,\"leaseTtlSeconds\":300,\"checks\":[%s]}".formatted(port,
						check),
				authorization);
		if (status >= 300) {
			System.out.printf("phase C: registering %s/%s answered %d%n", service, id, status);
		}
	}

	/** The others' lateness, in milliseconds, sorted. */
	private long[] lateness() {
		List<long[]> seen = new ArrayList<>(targets.arrivals().seen);
		long[] lateness = new long[seen.size()];
		for (int i = 0; i < lateness.length; i++) {
			long k = seen.get(i)[0];
			long offset = (long) (phase("probe-%d/i-%d/0".formatted(k % services, k)) * INTERVAL_MILLIS);
			long late = Math.floorMod(seen.get(i)[1] - offset, INTERVAL_MILLIS);
			// A probe noted a few milliseconds before its due time (the two clocks' reads
			// apart) is on time, not an interval late.
			lateness[i] = late > INTERVAL_MILLIS - 100 ? 0 : late;
		}
		Arrays.sort(lateness);
		return lateness;
	}

	/** A server that starts a TLS handshake record and then sends a byte every 0.7 s. */
	private static int trickling() throws IOException {
		ServerSocket server = new ServerSocket(0, 4096, InetAddress.getLoopbackAddress());
		byte[] header = { 0x16, 0x03, 0x03, 0x3e, (byte) 0x80 };
		ProbeLoad.Targets.acceptEach(server, socket -> Thread.ofVirtual().start(() -> {
			try (socket) {
				socket.getOutputStream().write(header);
				while (true) {
					Thread.sleep(700);
					socket.getOutputStream().write(0);
				}
			}
			catch (IOException | InterruptedException ex) {
				// the prober cut it, as it should
			}
		}));
		return server.getLocalPort();
	}

	/**
	 * A listener that never accepts: once its backlog of one is full, the kernel drops
	 * new connections' SYNs, and they wait in SYN-SENT until the prober gives up.
	 */
	private static int neverAccepting() throws IOException {
		ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
		return server.getLocalPort();
	}

	/**
	 * The node's {@code ProbeOwners.phase}: where in its interval a check is probed, from
	 * FNV-1a of "phase", a NUL and the check's key, then splitmix's finalizer.
	 */
	static double phase(String key) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : ("phase" + '\u0000' + key).getBytes(StandardCharsets.UTF_8)) {
			hash ^= b & 0xff;
			hash *= 0x100000001b3L;
		}
		hash ^= hash >>> 30;
		hash *= 0xbf58476d1ce4e5b9L;
		hash ^= hash >>> 27;
		hash *= 0x94d049bb133111ebL;
		hash ^= hash >>> 31;
		return (hash >>> 11) * 0x1.0p-53;
	}

	/** A target answering every probe with the status it holds. */
	record Canary(int port, AtomicInteger status, AtomicInteger hits) {

		static Canary start() throws IOException {
			ServerSocket server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
			Canary canary = new Canary(server.getLocalPort(), new AtomicInteger(200), new AtomicInteger());
			Thread.ofPlatform().daemon().start(() -> {
				byte[] head = new byte[4096];
				while (true) {
					try (Socket socket = server.accept()) {
						socket.setSoTimeout(1000);
						socket.getInputStream().read(head);
						canary.hits.incrementAndGet();
						socket.getOutputStream()
							.write("HTTP/1.1 %d Canary\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
								.formatted(canary.status.get())
								.getBytes(StandardCharsets.ISO_8859_1));
					}
					catch (IOException ex) {
						// the next probe
					}
				}
			});
			return canary;
		}

	}

}
