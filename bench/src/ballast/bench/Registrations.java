package ballast.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registration load generator for Ballast: N clients, each on its own platform thread and
 * its own keep-alive HTTP/1.1 connection, PUT registrations of their own instances as
 * fast as the server answers. Every PUT after an instance's first changes its weight, so
 * every request is a real write (new revision, change-log row, commit) and never a no-op
 * lease renewal.
 *
 * <p>
 * Run with {@code java bench/src/ballast/bench/Registrations.java --help}. Only the JDK is used.
 *
 * <p>
 * Exit status: 0 when every request succeeded and the final check matched, 1 when a
 * request failed or the check did not match, 2 on bad arguments or when the run could
 * not finish within its time bound.
 */
public class Registrations {

	static final int MAX_CONSECUTIVE_FAILURES = 20;

	record Options(URI url, int clients, int warmupSeconds, int seconds, long maxRequests, int services,
			int instancesPerClient, Duration timeout, String tag, String authorization) {

		static Options parse(String[] args) {
			BenchArgs values = BenchArgs.parse(args, 0, BenchArgs.defaults("--url", "http://127.0.0.1:8080", "--clients",
					"8", "--warmup", "5", "--seconds", "20", "--max-requests", "2000000", "--services", "4",
					"--instances-per-client", "50", "--timeout", "10", "--tag",
					HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6)), USAGE);
			return new Options(values.url("--url"), values.positive("--clients"), values.nonNegative("--warmup"),
					values.positive("--seconds"), values.positiveLong("--max-requests"), values.positive("--services"),
					values.positive("--instances-per-client"), Duration.ofSeconds(values.positive("--timeout")),
					values.matching("--tag", "[a-z0-9]{1,20}", "1 to 20 characters from [a-z0-9]"),
					BenchArgs.authorization());
		}

		static final String USAGE = """
				usage: java bench/src/ballast/bench/Registrations.java [options]
				  --url URL                    Ballast base URL (default http://127.0.0.1:8080)
				  --clients N                  concurrent clients, one connection each (default 8)
				  --warmup S                   seconds of unmeasured load first (default 5)
				  --seconds S                  measured seconds (default 20)
				  --max-requests N             stop the measured phase after N requests (default 2000000)
				  --services N                 services bench-<tag>-0..N-1 (default 4)
				  --instances-per-client N     distinct instances each client cycles through (default 50)
				  --timeout S                  timeout of every HTTP call, in seconds (default 10)
				  --tag T                      run tag in service names (default: random)
				environment:
				  BALLAST_TOKEN                bearer token sent on every call (required): registrant for
				                               bench-*, operator or admin; bench/registrations.sh sets it""";

		String service(int client, int k) {
			return "bench-" + tag + "-" + Math.floorMod(client * instancesPerClient + k, services);
		}

	}

	/** What one client did; written by its own thread only, read after it finished. */
	static final class Client {

		final int number;

		final int[] lastAckedWeight;

		final boolean[] created;

		long[] latencies = new long[1 << 14];

		int measured;

		long created201;

		long replaced200;

		long stoppedAt;

		int consecutiveFailures;

		boolean gaveUp;

		final Map<String, Long> failures = new LinkedHashMap<>();

		final List<String> failureSamples = new ArrayList<>();

		Client(int number, int instances) {
			this.number = number;
			this.lastAckedWeight = new int[instances];
			this.created = new boolean[instances];
			Arrays.fill(lastAckedWeight, -1);
		}

		void record(long nanos) {
			if (measured == latencies.length) {
				latencies = Arrays.copyOf(latencies, measured * 2);
			}
			latencies[measured++] = nanos;
		}

		void fail(String kind, String sample) {
			consecutiveFailures++;
			failures.merge(kind, 1L, Long::sum);
			if (failureSamples.size() < 3) {
				failureSamples.add(sample);
			}
		}

	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		System.out.printf("Registrations: %d clients against %s, %d s warm-up + %d s measured (max %d requests), "
				+ "%d services bench-%s-*, %d instances per client, %d s timeout per call%n", options.clients,
				options.url, options.warmupSeconds, options.seconds, options.maxRequests, options.services,
				options.tag, options.instancesPerClient, options.timeout.toSeconds());

		long start = System.nanoTime();
		long measureStart = start + TimeUnit.SECONDS.toNanos(options.warmupSeconds);
		long measureEnd = measureStart + TimeUnit.SECONDS.toNanos(options.seconds);
		AtomicLong measuredBudget = new AtomicLong(options.maxRequests);
		List<Client> clients = new ArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(options.clients);
		List<Future<?>> running = new ArrayList<>();
		for (int c = 0; c < options.clients; c++) {
			Client client = new Client(c, options.instancesPerClient);
			clients.add(client);
			running.add(pool.submit(() -> run(options, client, measureStart, measureEnd, measuredBudget)));
		}
		pool.shutdown();
		// A request in flight at the end may take up to one timeout, plus its connection setup.
		long bound = measureEnd - System.nanoTime() + 2 * options.timeout.toNanos() + TimeUnit.SECONDS.toNanos(5);
		if (!pool.awaitTermination(bound, TimeUnit.NANOSECONDS)) {
			System.err.println("error: clients did not finish within the time bound; giving up");
			System.exit(2);
		}
		for (Future<?> f : running) {
			f.get();
		}

		Map<String, Long> failures = new LinkedHashMap<>();
		List<String> samples = new ArrayList<>();
		long measured = 0;
		long created = 0;
		long replaced = 0;
		long stoppedAt = measureStart;
		for (Client client : clients) {
			measured += client.measured;
			created += client.created201;
			replaced += client.replaced200;
			stoppedAt = Math.max(stoppedAt, client.stoppedAt);
			client.failures.forEach((kind, n) -> failures.merge(kind, n, Long::sum));
			samples.addAll(client.failureSamples);
		}
		long failed = failures.values().stream().mapToLong(Long::longValue).sum();
		long gaveUp = clients.stream().filter(client -> client.gaveUp).count();
		long[] all = new long[(int) measured];
		int at = 0;
		for (Client client : clients) {
			System.arraycopy(client.latencies, 0, all, at, client.measured);
			at += client.measured;
		}
		Arrays.sort(all);
		// The measured window ends when the last client stopped: at most one request after
		// the deadline, or earlier if the request cap was reached or every client gave up.
		double elapsed = (stoppedAt - measureStart) / 1e9;

		Check check = check(options, clients);

		StringBuilder out = new StringBuilder();
		out.append("\n==== Ballast registration benchmark ====\n");
		line(out, "target", options.url.toString());
		line(out, "clients", options.clients + " (one HTTP/1.1 keep-alive connection each)");
		line(out, "measured window", "%.1f s after %d s warm-up".formatted(elapsed, options.warmupSeconds));
		line(out, "total requests", "%d successful in the measured window; all phases: %d created (201), "
			.formatted(measured, created) + "%d replaced (200), %d failed".formatted(replaced, failed));
		line(out, "failures", (failed == 0 ? "0" : failed + " " + failures)
				+ (gaveUp == 0 ? "" : "; %d clients gave up after %d consecutive failures".formatted(gaveUp,
						MAX_CONSECUTIVE_FAILURES)));
		line(out, "registrations/s",
				measured == 0 ? "n/a" : "%.1f (successful writes only)".formatted(measured / elapsed));
		line(out, "latency p50", millis(percentile(all, 50)));
		line(out, "latency p90", millis(percentile(all, 90)));
		line(out, "latency p99", millis(percentile(all, 99)));
		line(out, "latency max", millis(all.length == 0 ? -1 : all[all.length - 1]));
		line(out, "final check", check.summary);
		boolean ok = failed == 0 && check.ok && measured > 0;
		line(out, "result", ok ? "PASS" : "FAIL");
		out.append("========================================\n");
		System.out.print(out);
		for (String sample : samples.subList(0, Math.min(samples.size(), 5))) {
			System.out.println("failure sample: " + sample);
		}
		System.exit(ok ? 0 : 1);
	}

	private static void run(Options options, Client client, long measureStart, long measureEnd,
			AtomicLong measuredBudget) {
		try (HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(options.timeout)
			.build()) {
			int n = options.instancesPerClient;
			for (long j = 0;; j++) {
				long begin = System.nanoTime();
				if (begin >= measureEnd) {
					return;
				}
				boolean measuring = begin >= measureStart;
				if (measuring && measuredBudget.getAndDecrement() <= 0) {
					return;
				}
				int k = (int) (j % n);
				// Round r of instance k carries weight r+1 (mod 10000): it differs from the last
				// round's, so the server must write a new revision every time.
				int weight = (int) ((j / n) % 10_000) + 1;
				put(options, http, client, k, weight, measuring, begin);
				client.stoppedAt = System.nanoTime();
				if (client.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
					// The server is gone or broken; hammering it with fast failures would only
					// bury the first, interesting ones.
					client.gaveUp = true;
					return;
				}
			}
		}
	}

	private static void put(Options options, HttpClient http, Client client, int k, int weight, boolean measuring,
			long begin) {
		String service = options.service(client.number, k);
		String id = "i-" + client.number + "-" + k;
		URI uri = options.url.resolve("/v1/services/" + service + "/instances/" + id);
		String body = "{\"address\":\"127.0.0.1\",\"port\":%d,\"weight\":%d,\"leaseTtlSeconds\":300}"
			.formatted(10_000 + k, weight);
		HttpRequest request = HttpRequest.newBuilder(uri)
			.timeout(options.timeout)
			.header("Content-Type", "application/json")
			.header("Accept", "application/json")
			.header("Authorization", options.authorization)
			.PUT(HttpRequest.BodyPublishers.ofString(body))
			.build();
		try {
			HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
			long end = System.nanoTime();
			int expected = client.created[k] ? 200 : 201;
			if (response.statusCode() == expected && ackedWeight(response.body()) == weight) {
				if (expected == 201) {
					client.created201++;
				}
				else {
					client.replaced200++;
				}
				client.created[k] = true;
				client.lastAckedWeight[k] = weight;
				client.consecutiveFailures = 0;
				if (measuring) {
					client.record(end - begin);
				}
				return;
			}
			if (response.statusCode() == 200 || response.statusCode() == 201) {
				client.fail("unexpected-" + response.statusCode(), "PUT %s: expected %d with weight %d, got %d %s"
					.formatted(uri, expected, weight, response.statusCode(), abbreviate(response.body())));
				client.created[k] = true;
			}
			else {
				client.fail("http-" + response.statusCode(),
						"PUT %s: %d %s".formatted(uri, response.statusCode(), abbreviate(response.body())));
			}
		}
		catch (IOException ex) {
			client.fail(ex.getClass().getSimpleName(), "PUT %s: %s".formatted(uri, ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
	}

	/** The {@code weight} of the acknowledged instance, or -1 when the body does not say. */
	private static long ackedWeight(String body) {
		try {
			return Json.parse(body) instanceof Map<?, ?> instance && instance.get("weight") instanceof Number w
					? w.longValue() : -1;
		}
		catch (IllegalArgumentException ex) {
			return -1;
		}
	}

	record Check(boolean ok, String summary) {
	}

	/**
	 * Reads every benchmark service back and compares it with what was acknowledged: the
	 * same set of instances, each with the weight of its last acknowledged write.
	 */
	private static Check check(Options options, List<Client> clients) {
		Map<String, Map<String, Integer>> expected = new LinkedHashMap<>();
		for (int s = 0; s < options.services; s++) {
			expected.put("bench-" + options.tag + "-" + s, new HashMap<>());
		}
		long expectedTotal = 0;
		for (Client client : clients) {
			for (int k = 0; k < options.instancesPerClient; k++) {
				if (client.created[k]) {
					expected.get(options.service(client.number, k)).put("i-" + client.number + "-" + k,
							client.lastAckedWeight[k]);
					expectedTotal++;
				}
			}
		}
		long found = 0;
		List<String> problems = new ArrayList<>();
		try (HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(options.timeout)
			.build()) {
			for (var entry : expected.entrySet()) {
				String service = entry.getKey();
				Map<String, Integer> want = entry.getValue();
				URI uri = options.url.resolve("/v1/services/" + service + "/instances");
				HttpResponse<String> response = http.send(
						HttpRequest.newBuilder(uri)
							.timeout(options.timeout)
							.header("Accept", "application/json")
							.header("Authorization", options.authorization)
							.build(),
						HttpResponse.BodyHandlers.ofString());
				if (want.isEmpty() && response.statusCode() == 404) {
					continue;
				}
				if (response.statusCode() != 200) {
					problems.add("GET %s: %d %s".formatted(uri, response.statusCode(), abbreviate(response.body())));
					continue;
				}
				Map<String, Integer> got = new HashMap<>();
				for (Object item : (List<?>) ((Map<?, ?>) Json.parse(response.body())).get("instances")) {
					Map<?, ?> instance = (Map<?, ?>) item;
					got.put((String) instance.get("id"), ((Number) instance.get("weight")).intValue());
				}
				found += got.size();
				if (!got.keySet().equals(want.keySet())) {
					problems.add("%s: expected %d instances, found %d".formatted(service, want.size(), got.size()));
				}
				want.forEach((id, weight) -> {
					if (weight >= 0 && got.containsKey(id) && !got.get(id).equals(weight)) {
						problems.add("%s/%s: last acknowledged weight %d, stored %d".formatted(service, id, weight,
								got.get(id)));
					}
				});
			}
		}
		catch (IOException | RuntimeException ex) {
			problems.add("check failed: " + ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			problems.add("check interrupted");
		}
		String summary = "%d instances registered in %d services, %d found by GET; last acknowledged weights %s"
			.formatted(expectedTotal, options.services, found, problems.isEmpty() ? "match" : "checked");
		if (!problems.isEmpty()) {
			summary += " -> MISMATCH: " + String.join("; ", problems.subList(0, Math.min(problems.size(), 5)))
					+ (problems.size() > 5 ? " (+%d more)".formatted(problems.size() - 5) : "");
		}
		else {
			summary += " -> OK";
		}
		return new Check(problems.isEmpty(), summary);
	}

	private static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return -1;
		}
		int rank = (int) Math.ceil(p / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	private static String millis(long nanos) {
		return nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
	}

	private static void line(StringBuilder out, String label, String value) {
		out.append(String.format(Locale.ROOT, "%-17s %s%n", label + ":", value));
	}

	private static String abbreviate(String text) {
		String flat = text == null ? "" : text.replaceAll("\\s+", " ");
		return flat.length() <= 300 ? flat : flat.substring(0, 300) + "...";
	}

	/** Just enough JSON to read Ballast's responses: objects, arrays, strings, numbers, literals. */
	static final class Json {

		private final String text;

		private int at;

		private Json(String text) {
			this.text = text;
		}

		static Object parse(String text) {
			Json json = new Json(text == null ? "" : text);
			Object value = json.value();
			json.space();
			if (json.at != json.text.length()) {
				throw json.error("trailing characters");
			}
			return value;
		}

		private Object value() {
			space();
			if (at >= text.length()) {
				throw error("unexpected end");
			}
			char c = text.charAt(at);
			return switch (c) {
				case '{' -> object();
				case '[' -> array();
				case '"' -> string();
				case 't' -> literal("true", Boolean.TRUE);
				case 'f' -> literal("false", Boolean.FALSE);
				case 'n' -> literal("null", null);
				default -> number();
			};
		}

		private Map<String, Object> object() {
			Map<String, Object> map = new LinkedHashMap<>();
			at++;
			space();
			if (peek('}')) {
				return map;
			}
			do {
				space();
				String key = string();
				space();
				expect(':');
				map.put(key, value());
				space();
			}
			while (peek(','));
			expect('}');
			return map;
		}

		private List<Object> array() {
			List<Object> list = new ArrayList<>();
			at++;
			space();
			if (peek(']')) {
				return list;
			}
			do {
				list.add(value());
				space();
			}
			while (peek(','));
			expect(']');
			return list;
		}

		private String string() {
			expect('"');
			StringBuilder sb = new StringBuilder();
			while (at < text.length()) {
				char c = text.charAt(at++);
				if (c == '"') {
					return sb.toString();
				}
				if (c == '\\') {
					char e = text.charAt(at++);
					switch (e) {
						case 'n' -> sb.append('\n');
						case 't' -> sb.append('\t');
						case 'r' -> sb.append('\r');
						case 'b' -> sb.append('\b');
						case 'f' -> sb.append('\f');
						case 'u' -> {
							sb.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
							at += 4;
						}
						default -> sb.append(e);
					}
				}
				else {
					sb.append(c);
				}
			}
			throw error("unterminated string");
		}

		private Number number() {
			int begin = at;
			while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
				at++;
			}
			String token = text.substring(begin, at);
			if (token.isEmpty()) {
				throw error("unexpected character");
			}
			try {
				return token.matches("-?\\d{1,18}") ? (Number) Long.parseLong(token) : (Number) Double.parseDouble(token);
			}
			catch (NumberFormatException ex) {
				throw error("bad number " + token);
			}
		}

		private Object literal(String word, Object value) {
			if (!text.startsWith(word, at)) {
				throw error("unexpected character");
			}
			at += word.length();
			return value;
		}

		private boolean peek(char c) {
			if (at < text.length() && text.charAt(at) == c) {
				at++;
				return true;
			}
			return false;
		}

		private void expect(char c) {
			if (!peek(c)) {
				throw error("expected '" + c + "'");
			}
		}

		private void space() {
			while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
				at++;
			}
		}

		private IllegalArgumentException error(String what) {
			return new IllegalArgumentException("JSON: " + what + " at offset " + at);
		}

	}

}
