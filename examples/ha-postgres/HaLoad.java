// In the benchmarks' package, for their HTTP/1.1 client and JSON reader (bench/src/ballast/bench).
package ballast.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

import ballast.bench.Registrations.Json;

/**
 * The load and the checker of examples/ha-postgres/e2e.sh, in one program so that what it
 * checks is what it saw. Against three Ballast nodes (every client fails over to the next
 * node when one does not answer) it keeps up:
 *
 * <ul>
 * <li>registrations at a steady rate (instance r-N of service reg-(N % 4), metadata
 * seq=N), each sent with an {@code Idempotency-Key} and sent again with the same key and
 * body after a 503 or a lost answer, until one 2xx (an acknowledged write);</li>
 * <li>heartbeats for every instance of hb-0 .. hb-9 (200 each, lease of --ttl seconds,
 * one beat every --beat seconds, sent again at once to the next node when unanswered);</li>
 * <li>SSE watchers (20 on each of reg-0 .. reg-3 and on hb-0, spread over the nodes),
 * each resuming with {@code Last-Event-ID} when its stream ends, and checking every event:
 * within one history each service revision (from the event's data, ids are opaque) comes
 * once and in order, or a {@code snapshot} starts afresh;</li>
 * <li>a drain, when told.</li>
 * </ul>
 *
 * Commands on standard input, one a line: {@code drain SERVICE ID SECONDS};
 * {@code mark EPOCH_MILLIS} (the kill); {@code check LABEL sync|async} (quiesces the
 * writes, compares every watcher's state with the registry's at the same revision, looks
 * for acknowledged writes lost and false expiries, prints one {@code RESULT LABEL ...}
 * line and a {@code VERDICT LABEL PASS|FAIL ...} line, then resumes; after an asynchronous
 * failover lost writes are counted, not failed, and every watcher that had seen one must
 * have had a snapshot and end in the registry's state); {@code quit}.
 * It prints {@code READY} once everything runs. Every wait is bounded.
 *
 * javac -d classes bench/src/ballast/bench/*.java examples/ha-postgres/HaLoad.java
 * java -cp classes ballast.bench.HaLoad --nodes http://127.0.0.1:8081,... --token-file F [--rate 20]
 * [--ttl 10] [--beat 3] [--watchers 100] [--instances 2000]
 */
public class HaLoad {

	static final int REG_SERVICES = 4;

	static final int HB_SERVICES = 10;

	static final String WATCHED_HB = "hb-0";

	static List<URI> nodes;

	static String authorization;

	static volatile boolean running = true;

	/** The counters of the current phase (reset by each check). */
	static volatile Phase phase = new Phase();

	public static void main(String[] args) throws Exception {
		Map<String, String> options = options(args);
		nodes = List.of(options.get("--nodes").split(",")).stream().map(URI::create).toList();
		authorization = "Authorization: Bearer " + Files.readString(Path.of(options.get("--token-file"))).strip()
				+ "\r\n";
		int instances = Integer.parseInt(options.getOrDefault("--instances", "2000"));
		int ttl = Integer.parseInt(options.getOrDefault("--ttl", "10"));
		double beatSeconds = Double.parseDouble(options.getOrDefault("--beat", "3"));
		double rate = Double.parseDouble(options.getOrDefault("--rate", "20"));
		int watcherCount = Integer.parseInt(options.getOrDefault("--watchers", "100"));

		Heartbeats heartbeats = new Heartbeats(instances, ttl, beatSeconds);
		heartbeats.start();
		long registering = System.nanoTime() + 300_000_000_000L;
		while (heartbeats.registered.get() < instances) {
			if (System.nanoTime() > registering) {
				throw new IllegalStateException("only %d of %d instances registered within 300 s"
					.formatted(heartbeats.registered.get(), instances));
			}
			Thread.sleep(200);
		}
		log("%d instances registered in %d services, beating every %.1f s (lease %d s)", instances, HB_SERVICES,
				beatSeconds, ttl);
		Registrations registrations = new Registrations(rate);
		registrations.start();
		List<Watcher> watchers = new ArrayList<>();
		for (int w = 0; w < watcherCount; w++) {
			int slot = w % (REG_SERVICES + 1);
			Watcher watcher = new Watcher(w, slot < REG_SERVICES ? "reg-" + slot : WATCHED_HB, w % nodes.size());
			watchers.add(watcher);
			Thread.ofVirtual().name("watcher-" + w).start(watcher::run);
		}
		long deadline = System.nanoTime() + 120_000_000_000L;
		while (watchers.stream().anyMatch(w -> w.snapshots.get() == 0)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("watchers without a snapshot after 120 s: "
						+ watchers.stream().filter(w -> w.snapshots.get() == 0).count());
			}
			Thread.sleep(200);
		}
		// A round of heartbeats after the last registration, then the first phase starts.
		Thread.sleep((long) (beatSeconds * 1000));
		phase = new Phase();
		log("READY: %d watchers have their snapshot, registrations at %.0f/s", watcherCount, rate);
		System.out.println("READY");
		Drain drain = null;
		BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = control.readLine(); line != null; line = control.readLine()) {
			String[] words = line.strip().split("\\s+");
			switch (words[0]) {
				case "drain" -> drain = Drain.start(words[1], words[2], Integer.parseInt(words[3]));
				case "mark" -> {
					phase.killedAt = Long.parseLong(words[1]);
					log("kill marked at %s", Instant.ofEpochMilli(phase.killedAt));
				}
				case "check" -> new Check(words[1], words[2].equals("sync"), registrations, heartbeats, watchers,
						drain)
					.run();
				case "quit" -> {
					running = false;
					log("quit");
					System.exit(0);
				}
				default -> log("unknown command: %s", line);
			}
		}
		running = false;
		System.exit(0);
	}

	// ------------------------------------------------------------------ plumbing

	static Map<String, String> options(String[] args) {
		Map<String, String> options = new HashMap<>();
		for (int i = 0; i + 1 < args.length; i += 2) {
			options.put(args[i], args[i + 1]);
		}
		if (!options.containsKey("--nodes") || !options.containsKey("--token-file")) {
			throw new IllegalArgumentException("usage: HaLoad --nodes URL,URL,... --token-file FILE [options]");
		}
		return options;
	}

	static void log(String format, Object... args) {
		System.out.printf("%s %s%n", Instant.now(), format.formatted(args));
		System.out.flush();
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(Math.max(0, millis));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** What one phase saw of the answers; a 5xx other than 503 with Retry-After is a fault. */
	static final class Phase {

		final long startedAt = System.currentTimeMillis();

		volatile long killedAt;

		final LongAdder answers = new LongAdder();

		final LongAdder unavailable = new LongAdder();

		/** 503s with Retry-After by what was asked: registration, heartbeat, watch, read, drain. */
		final Map<String, LongAdder> unavailableBy = new ConcurrentHashMap<>();

		final LongAdder lostAnswers = new LongAdder();

		final LongAdder badServerErrors = new LongAdder();

		final LongAdder unexpected = new LongAdder();

		final LongAdder heartbeatsMissing = new LongAdder();

		final List<String> faults = new CopyOnWriteArrayList<>();

		void count(String what, Answer answer) {
			if (answer.lost()) {
				lostAnswers.increment();
				return;
			}
			answers.increment();
			if (answer.status == 503 && answer.retryAfter != null) {
				unavailable.increment();
				unavailableBy.computeIfAbsent(what.split(" ")[0], kind -> new LongAdder()).increment();
			}
			else if (answer.status >= 500) {
				badServerErrors.increment();
				fault(what + " answered " + answer.status + " (Retry-After " + answer.retryAfter + "): "
						+ answer.body.substring(0, Math.min(200, answer.body.length())));
			}
		}

		void fault(String what) {
			unexpected.increment();
			if (faults.size() < 10) {
				faults.add(Instant.now() + " " + what);
			}
		}

	}

	record Answer(int status, String body, String retryAfter, String stale, long sentAt, long answeredAt) {

		boolean lost() {
			return status < 0;
		}

		boolean ok() {
			return status / 100 == 2;
		}

		long retryMillis() {
			try {
				return retryAfter == null ? 1000 : Math.min(5, Long.parseLong(retryAfter)) * 1000;
			}
			catch (NumberFormatException ex) {
				return 1000;
			}
		}

	}

	/**
	 * One caller's connections to the nodes: it sends to its current node and moves to the
	 * next one when that one does not answer (connection refused, reset or timed out).
	 */
	static final class Client implements AutoCloseable {

		private final Http1[] connections = new Http1[nodes.size()];

		private int current;

		Client(int first) {
			this.current = first % nodes.size();
		}

		Answer send(String method, String path, String extraHeaders, String body) {
			long sentAt = System.currentTimeMillis();
			Http1 connection = connection();
			String headers = authorization + (body == null ? "" : "Content-Type: application/json\r\n")
					+ (extraHeaders == null ? "" : extraHeaders);
			try {
				Http1.Response response = connection.exchange(method, path, headers, body);
				return new Answer(response.status(), response.body(), connection.header("Retry-After"),
						connection.header("X-Ballast-Stale"), sentAt, System.currentTimeMillis());
			}
			catch (IOException | RuntimeException ex) {
				connection.close();
				current = (current + 1) % nodes.size();
				return new Answer(-1, String.valueOf(ex), null, null, sentAt, System.currentTimeMillis());
			}
		}

		int node() {
			return current;
		}

		private Http1 connection() {
			if (connections[current] == null) {
				connections[current] = new Http1(nodes.get(current), 15_000, 16 * 1024).keepHeaders();
			}
			return connections[current];
		}

		@Override
		public void close() {
			for (Http1 connection : connections) {
				if (connection != null) {
					connection.close();
				}
			}
		}

	}

	// ------------------------------------------------------------------ the load

	/** An acknowledged registration: a 2xx answer for r-N in reg-(N % 4). */
	record Ack(String service, String id, long seq, int status, int attempts, long sentAt, long answeredAt) {
	}

	static final class Registrations {

		final double rate;

		final List<Ack> acks = new CopyOnWriteArrayList<>();

		final AtomicInteger inFlight = new AtomicInteger();

		final AtomicLong refused = new AtomicLong();

		volatile boolean paused;

		Registrations(double rate) {
			this.rate = rate;
		}

		void start() {
			Thread.ofVirtual().name("registrations").start(() -> {
				long interval = (long) (1e9 / rate);
				long next = System.nanoTime();
				long seq = 0;
				while (running) {
					if (paused) {
						sleep(50);
						next = System.nanoTime();
						continue;
					}
					next += interval;
					sleep((next - System.nanoTime()) / 1_000_000);
					long n = seq++;
					inFlight.incrementAndGet();
					Thread.ofVirtual().start(() -> {
						try {
							register(n);
						}
						finally {
							inFlight.decrementAndGet();
						}
					});
				}
			});
		}

		/** Sends r-N until one 2xx, for at most 90 s; the same key and body each time. */
		void register(long seq) {
			String service = "reg-" + seq % REG_SERVICES;
			String id = "r-" + seq;
			String path = "/v1/services/%s/instances/%s".formatted(service, id);
			String body = """
					{"address":"10.1.%d.%d","port":%d,"leaseTtlSeconds":300,"metadata":{"seq":"%d"}}"""
				.formatted(seq / 250 % 250, seq % 250, 1000 + seq % 50_000, seq);
			String key = "Idempotency-Key: e2e-reg-" + seq + "\r\n";
			long deadline = System.currentTimeMillis() + 90_000;
			try (Client client = new Client((int) seq)) {
				for (int attempt = 1; System.currentTimeMillis() < deadline && running; attempt++) {
					Answer answer = client.send("PUT", path, key, body);
					phase.count("registration " + path, answer);
					if (answer.ok()) {
						acks.add(new Ack(service, id, seq, answer.status, attempt, answer.sentAt, answer.answeredAt));
						return;
					}
					if (answer.lost()) {
						sleep(200);
					}
					else if (answer.status == 503 || answer.status == 429) {
						sleep(answer.retryMillis());
					}
					else {
						phase.fault("PUT " + path + " answered " + answer.status + ": " + answer.body);
						refused.incrementAndGet();
						return;
					}
				}
			}
			phase.fault("PUT " + path + " not acknowledged within 90 s");
			refused.incrementAndGet();
		}

		/** Stops new registrations and waits (up to 100 s) for those under way. */
		void pause() {
			paused = true;
			long deadline = System.currentTimeMillis() + 100_000;
			while (inFlight.get() > 0 && System.currentTimeMillis() < deadline) {
				sleep(50);
			}
		}

	}

	static final class Heartbeats {

		static final int THREADS = 16;

		final int instances;

		final int ttl;

		final long periodMillis;

		/** When each instance last had a heartbeat answered 200. */
		final long[] lastBeat;

		/** Each instance's last beats (sent, answered, node, status), for the report of an expiry. */
		final Map<Integer, java.util.Deque<String>> history = new ConcurrentHashMap<>();

		final LongAdder beats = new LongAdder();

		final LongAdder reRegistered = new LongAdder();

		Heartbeats(int instances, int ttl, double beatSeconds) {
			this.instances = instances;
			this.ttl = ttl;
			this.periodMillis = (long) (beatSeconds * 1000);
			this.lastBeat = new long[instances];
		}

		static String service(int k) {
			return "hb-" + k % HB_SERVICES;
		}

		String path(int k) {
			return "/v1/services/%s/instances/i-%d".formatted(service(k), k);
		}

		boolean register(Client client, int k) {
			String body = """
					{"address":"10.2.%d.%d","port":%d,"weight":100,"leaseTtlSeconds":%d}"""
				.formatted(k / 250, k % 250, 2000 + k, ttl);
			for (int attempt = 0; attempt < 100 && running; attempt++) {
				Answer answer = client.send("PUT", path(k), null, body);
				phase.count("registration " + path(k), answer);
				if (answer.ok()) {
					lastBeat[k] = answer.answeredAt;
					return true;
				}
				sleep(answer.lost() ? 200 : answer.retryMillis());
			}
			return false;
		}

		/** Registered so far: each beating thread registers its instances in its first round. */
		final AtomicInteger registered = new AtomicInteger();

		void start() {
			for (int t = 0; t < THREADS; t++) {
				int first = t;
				Thread.ofVirtual().name("heartbeats-" + t).start(() -> beat(first));
			}
		}

		/**
		 * This thread's instances: each registered, then beaten once a period after its
		 * last beat. A beat that is due goes before the next registration, so that the
		 * first instances are not left without a beat while the rest are registered.
		 */
		private void beat(int first) {
			java.util.ArrayDeque<Integer> unregistered = new java.util.ArrayDeque<>();
			for (int k = first; k < instances; k += THREADS) {
				unregistered.add(k);
			}
			// Registered instances in the order they are due; each is due a period after
			// its last send, so the order stays the order of the sends.
			java.util.ArrayDeque<long[]> due = new java.util.ArrayDeque<>();
			try (Client client = new Client(first)) {
				while (running) {
					long now = System.currentTimeMillis();
					if (!due.isEmpty() && due.peek()[1] <= now) {
						int k = (int) due.poll()[0];
						beatOnce(client, k);
						due.add(new long[] { k, now + periodMillis });
					}
					else if (!unregistered.isEmpty()) {
						int k = unregistered.poll();
						if (register(client, k)) {
							registered.incrementAndGet();
						}
						due.add(new long[] { k, now + periodMillis });
					}
					else {
						sleep(due.peek()[1] - now);
					}
				}
			}
		}

		private void beatOnce(Client client, int k) {
			Answer answer = beatOn(client, k);
			if (answer.lost()) {
				// As a client with several nodes does: the same beat, at once, to the next.
				answer = beatOn(client, k);
			}
			if (answer.status == 200) {
				lastBeat[k] = answer.answeredAt;
				beats.increment();
			}
			else if (answer.status == 404) {
				// As a client does: the registry does not know it any more.
				phase.fault("heartbeat " + path(k) + " answered 404; registered again");
				reRegistered.increment();
				register(client, k);
			}
			else if (!answer.lost()) {
				phase.heartbeatsMissing.increment();
			}
			if (System.currentTimeMillis() - lastBeat[k] > ttl * 1000L) {
				phase.fault("i-" + k + " had no heartbeat answered for more than its " + ttl + " s lease; last beats "
						+ history.get(k));
				lastBeat[k] = System.currentTimeMillis();
			}
		}

		private Answer beatOn(Client client, int k) {
			int node = client.node();
			Answer answer = client.send("POST", path(k) + "/heartbeat", null, null);
			phase.count("heartbeat " + path(k), answer);
			java.util.Deque<String> last = history.computeIfAbsent(k,
					key -> new java.util.concurrent.LinkedBlockingDeque<>());
			last.addLast("%s→%s node %d: %d".formatted(Instant.ofEpochMilli(answer.sentAt),
					Instant.ofEpochMilli(answer.answeredAt), node, answer.status));
			while (last.size() > 8) {
				last.pollFirst();
			}
			return answer;
		}

	}

	/** The one drain under way: its instance, and when it was started. */
	record Drain(String service, String id, int seconds, long startedAt) {

		static Drain start(String service, String id, int seconds) {
			String path = "/v1/services/%s/instances/%s/drain".formatted(service, id);
			try (Client client = new Client(0)) {
				for (int attempt = 0; attempt < 60; attempt++) {
					Answer answer = client.send("POST", path, "Idempotency-Key: e2e-drain-" + id + "\r\n",
							"{\"durationSeconds\":" + seconds + "}");
					phase.count("drain " + path, answer);
					if (answer.ok()) {
						log("drain of %s/%s over %d s started: %d", service, id, seconds, answer.status);
						return new Drain(service, id, seconds, answer.answeredAt);
					}
					sleep(answer.lost() ? 200 : answer.retryMillis());
				}
			}
			throw new IllegalStateException("the drain could not be started");
		}

	}

	// ------------------------------------------------------------------ the watchers

	static final class Watcher {

		final int number;

		final String service;

		int node;

		/** The state rebuilt from the events: id → the instance's fields compared. */
		final Map<String, String> state = new TreeMap<>();

		long revision = -1;

		String lastEventId;

		final AtomicLong snapshots = new AtomicLong();

		final List<Long> snapshotTimes = new CopyOnWriteArrayList<>();

		final AtomicLong gaps = new AtomicLong();

		final AtomicLong repeats = new AtomicLong();

		final AtomicLong staleEvents = new AtomicLong();

		final AtomicLong reconnects = new AtomicLong();

		final List<String> anomalies = new CopyOnWriteArrayList<>();

		/** Every instance id this watcher saw upserted: to tell who saw a lost write. */
		final Set<String> seen = ConcurrentHashMap.newKeySet();

		Watcher(int number, String service, int node) {
			this.number = number;
			this.service = service;
			this.node = node;
		}

		synchronized long revision() {
			return revision;
		}

		synchronized Map<String, String> state() {
			return new TreeMap<>(state);
		}

		void run() {
			while (running) {
				Http1 connection = new Http1(nodes.get(node), 5_000, 64 * 1024).keepHeaders();
				long retry = 500;
				try {
					String resume = lastEventId == null ? "" : "Last-Event-ID: " + lastEventId + "\r\n";
					int status = connection.openStream("GET", "/v1/services/" + service + "/watch",
							authorization + "Accept: text/event-stream\r\n" + resume, null);
					if (status != 200) {
						String body = "";
						Answer answer = new Answer(status, body, connection.header("Retry-After"), null, 0, 0);
						phase.count("watch " + service, answer);
						retry = answer.retryMillis();
					}
					else {
						// Keepalives come at least every 15 s: 45 s of silence is a dead stream.
						connection.streamTimeout(45_000);
						retry = read(connection);
					}
				}
				catch (IOException | RuntimeException ex) {
					node = (node + 1) % nodes.size();
				}
				finally {
					connection.close();
				}
				reconnects.incrementAndGet();
				sleep(retry);
			}
		}

		/** Reads events until the stream ends; the retry the server asked for. */
		private long read(Http1 connection) throws IOException {
			String event = "message";
			String id = null;
			StringBuilder data = new StringBuilder();
			long retry = 500;
			for (String line = connection.readLine(); line != null && running; line = connection.readLine()) {
				if (line.isEmpty()) {
					if (id != null) {
						lastEventId = id;
					}
					if (!data.isEmpty()) {
						apply(event, data.toString());
					}
					event = "message";
					id = null;
					data.setLength(0);
				}
				else if (line.startsWith(":")) {
					continue;
				}
				else {
					int colon = line.indexOf(':');
					String field = colon < 0 ? line : line.substring(0, colon);
					String value = colon < 0 ? "" : line.substring(colon + 1);
					if (value.startsWith(" ")) {
						value = value.substring(1);
					}
					switch (field) {
						case "event" -> event = value;
						case "id" -> id = value;
						case "data" -> data.append(data.isEmpty() ? "" : "\n").append(value);
						case "retry" -> retry = Long.parseLong(value);
						default -> {
						}
					}
				}
			}
			return retry;
		}

		private synchronized void apply(String event, String data) {
			@SuppressWarnings("unchecked")
			Map<String, Object> json = (Map<String, Object>) Json.parse(data);
			switch (event) {
				case "snapshot" -> {
					state.clear();
					for (Object instance : (List<?>) json.get("instances")) {
						@SuppressWarnings("unchecked")
						Map<String, Object> fields = (Map<String, Object>) instance;
						state.put((String) fields.get("id"), project(fields));
						seen.add((String) fields.get("id"));
					}
					revision = ((Number) json.get("revision")).longValue();
					snapshots.incrementAndGet();
					snapshotTimes.add(System.currentTimeMillis());
				}
				case "upsert", "remove" -> {
					long next = ((Number) json.get("revision")).longValue();
					if (next <= revision) {
						repeats.incrementAndGet();
						anomaly("%s at revision %d after %d".formatted(event, next, revision));
					}
					else if (next > revision + 1) {
						gaps.incrementAndGet();
						anomaly("%s at revision %d after %d".formatted(event, next, revision));
					}
					revision = next;
					String id = (String) json.get("id");
					if (event.equals("upsert")) {
						state.put(id, project(json));
						seen.add(id);
					}
					else {
						state.remove(id);
					}
				}
				case "stale" -> staleEvents.incrementAndGet();
				case "reconnect" -> {
				}
				default -> anomaly("unexpected event " + event + ": " + data);
			}
		}

		private void anomaly(String what) {
			if (anomalies.size() < 5) {
				anomalies.add("%s watcher %d (%s, node %d): %s".formatted(Instant.now(), number, service, node, what));
			}
		}

	}

	/**
	 * The fields of an instance a watcher must agree on with a read at the same revision
	 * ({@code leaseExpiresAt} is left out: events carry it as of the last change, reads
	 * fresh).
	 */
	static String project(Map<String, Object> instance) {
		return List.of("revision", "address", "port", "weight", "effectiveWeight", "mode", "health", "metadata")
			.stream()
			.map(field -> field + "=" + instance.get(field))
			.collect(Collectors.joining(","));
	}

	// ------------------------------------------------------------------ the check

	static final class Check {

		final String label;

		final boolean synchronous;

		final Registrations registrations;

		final Heartbeats heartbeats;

		final List<Watcher> watchers;

		final Drain drain;

		final Phase checked = phase;

		final Client reader = new Client(0);

		Check(String label, boolean synchronous, Registrations registrations, Heartbeats heartbeats,
				List<Watcher> watchers, Drain drain) {
			this.label = label;
			this.synchronous = synchronous;
			this.registrations = registrations;
			this.heartbeats = heartbeats;
			this.watchers = watchers;
			this.drain = drain;
		}

		void run() {
			log("check %s: pausing registrations", label);
			registrations.pause();
			String drainState = drainState();
			Map<String, Map<String, String>> registry = new TreeMap<>();
			Map<String, Long> revisions = new TreeMap<>();
			int mismatched = settle(registry, revisions);

			for (int s = 0; s < REG_SERVICES; s++) {
				registry.computeIfAbsent("reg-" + s, service -> read(service).instances);
			}
			List<Ack> acks = List.copyOf(registrations.acks);
			List<Ack> lost = acks.stream()
				.filter(ack -> !registry.get(ack.service).containsKey(ack.id))
				.toList();
			long appliedBeforeRetry = acks.stream().filter(ack -> ack.attempts > 1 && ack.status == 200).count();
			long retried = acks.stream().filter(ack -> ack.attempts > 1).count();

			long killedAt = checked.killedAt;
			String firstWrite = killedAt == 0 ? "n/a"
					: acks.stream()
						.filter(ack -> ack.sentAt >= killedAt)
						.mapToLong(Ack::answeredAt)
						.min()
						.stream()
						.mapToObj(at -> "%.1fs".formatted((at - killedAt) / 1000.0))
						.findFirst()
						.orElse("none");

			int[] expiries = falseExpiries();
			long gaps = watchers.stream().mapToLong(w -> w.gaps.getAndSet(0)).sum();
			long repeats = watchers.stream().mapToLong(w -> w.repeats.getAndSet(0)).sum();
			long stale = watchers.stream().mapToLong(w -> w.staleEvents.getAndSet(0)).sum();
			long reconnects = watchers.stream().mapToLong(w -> w.reconnects.getAndSet(0)).sum();
			long resnapshotted = watchers.stream()
				.filter(w -> w.snapshotTimes.stream().anyMatch(t -> t >= checked.startedAt))
				.count();

			if (!lost.isEmpty()) {
				log("lost (acknowledged, not in the newest read): %s", lost.stream()
					.limit(10)
					.map(ack -> "%s/%s answered %d at %s".formatted(ack.service, ack.id, ack.status,
							Instant.ofEpochMilli(ack.answeredAt)))
					.collect(Collectors.joining("; ")));
			}
			String asyncPart = "";
			List<String> untold = new ArrayList<>();
			if (!synchronous) {
				Set<String> lostIds = lost.stream().map(Ack::id).collect(Collectors.toSet());
				List<Watcher> affected = watchers.stream()
					.filter(w -> w.seen.stream().anyMatch(lostIds::contains))
					.toList();
				long told = affected.stream()
					.filter(w -> w.snapshotTimes.stream().anyMatch(t -> t >= killedAt))
					.count();
				long exact = affected.stream()
					.filter(w -> w.state().equals(registry.get(w.service)) && w.revision() == revisions.get(w.service))
					.count();
				asyncPart = " watchers_that_saw_lost_writes=%d resnapshotted_after_kill=%d ending_in_final_state=%d"
					.formatted(affected.size(), told, exact);
				if (told < affected.size()) {
					untold.add((affected.size() - told) + " watchers that saw lost writes got no snapshot");
				}
				if (exact < affected.size()) {
					untold.add((affected.size() - exact) + " watchers that saw lost writes do not end in the final state");
				}
			}

			String result = ("RESULT %s first_write_after_kill=%s acknowledged_writes=%d lost=%d watcher_gaps=%d "
					+ "duplicates=%d watchers_not_matching_registry=%d false_expiries=%d not_passing=%d "
					+ "other_5xx=%d 503_with_retry_after=%d lost_answers=%d retried=%d (of which applied before "
					+ "their retry=%d) stale_events=%d stream_reconnects=%d watchers_resnapshotted=%d "
					+ "heartbeats_404=%d drain=%s nodes_disagreeing=%d%s 503s_by_request=%s")
				.formatted(label, firstWrite, acks.size(), lost.size(), gaps, repeats, mismatched, expiries[0],
						expiries[1], checked.badServerErrors.sum(), checked.unavailable.sum(),
						checked.lostAnswers.sum(), retried, appliedBeforeRetry, stale, reconnects, resnapshotted,
						heartbeats.reRegistered.sumThenReset(), drainState, disagreements.size(), asyncPart,
						new TreeMap<>(checked.unavailableBy));
			System.out.println(result);
			watchers.forEach(w -> w.anomalies.forEach(a -> log("anomaly: %s", a)));
			watchers.forEach(w -> w.anomalies.clear());
			checked.faults.forEach(f -> log("fault: %s", f));

			// Asynchronous replication loses a tail by design: what is checked then is that
			// every watcher was told.
			List<String> failures = new ArrayList<>(untold);
			if (synchronous && !lost.isEmpty()) {
				failures.add(lost.size() + " acknowledged writes lost");
			}
			if (gaps + repeats > 0) {
				failures.add("watcher gaps/duplicates " + gaps + "/" + repeats);
			}
			if (mismatched > 0) {
				failures.add(mismatched + " watchers differ from the registry");
			}
			if (!disagreements.isEmpty()) {
				failures.add("nodes disagree: " + String.join("; ", disagreements));
			}
			if (expiries[0] + expiries[1] > 0) {
				failures.add("false expiries " + expiries[0] + ", not passing " + expiries[1]);
			}
			if (checked.badServerErrors.sum() > 0) {
				failures.add(checked.badServerErrors.sum() + " 5xx other than 503 with Retry-After");
			}
			if (registrations.refused.getAndSet(0) > 0) {
				failures.add("registrations refused or never acknowledged (see faults)");
			}
			if (drain != null && !drainState.startsWith("DRAINED")) {
				failures.add("the drain ended " + drainState);
			}
			String verdict = failures.isEmpty() ? "PASS" : "FAIL";
			System.out.println("VERDICT " + label + " " + verdict + " " + String.join("; ", failures));
			registrations.acks.clear();
			registrations.acks.addAll(acks.stream().filter(ack -> !lost.contains(ack)).toList());
			phase = new Phase();
			registrations.paused = false;
			reader.close();
		}

		/** The drain's instance once it ended (or after 90 s): "MODE/effectiveWeight". */
		private String drainState() {
			if (drain == null) {
				return "none";
			}
			long deadline = drain.startedAt + drain.seconds * 1000L + 90_000;
			String state = "unknown";
			do {
				Answer answer = reader.send("GET", "/v1/services/%s/instances/%s".formatted(drain.service, drain.id),
						null, null);
				checked.count("read drain", answer);
				if (answer.ok()) {
					@SuppressWarnings("unchecked")
					Map<String, Object> instance = (Map<String, Object>) Json.parse(answer.body);
					state = instance.get("mode") + "/" + instance.get("effectiveWeight");
					if (state.equals("DRAINED/0")) {
						return state;
					}
				}
				sleep(500);
			}
			while (System.currentTimeMillis() < deadline);
			return state;
		}

		record Read(int node, long revision, Map<String, String> instances) {
		}

		/** Nodes that disagreed on a service's revision for the whole settling wait. */
		final List<String> disagreements = new ArrayList<>();

		/** A fresh read of a service (no X-Ballast-Stale) from any node, within 60 s. */
		private Read read(String service) {
			long deadline = System.currentTimeMillis() + 60_000;
			while (true) {
				int node = reader.node();
				Answer answer = reader.send("GET", "/v1/services/" + service + "/instances", null, null);
				checked.count("read " + service, answer);
				if (answer.ok() && answer.stale == null) {
					return parse(node, answer.body);
				}
				if (System.currentTimeMillis() > deadline) {
					throw new IllegalStateException("no fresh read of " + service + " within 60 s: " + answer);
				}
				sleep(300);
			}
		}

		private static Read parse(int node, String body) {
			@SuppressWarnings("unchecked")
			Map<String, Object> json = (Map<String, Object>) Json.parse(body);
			Map<String, String> instances = new TreeMap<>();
			for (Object instance : (List<?>) json.get("instances")) {
				@SuppressWarnings("unchecked")
				Map<String, Object> fields = (Map<String, Object>) instance;
				instances.put((String) fields.get("id"), project(fields));
			}
			return new Read(node, ((Number) json.get("revision")).longValue(), instances);
		}

		/** A fresh read of a service from every node that answers one (5 s each). */
		private List<Read> readAll(String service) {
			List<Read> reads = new ArrayList<>();
			for (int node = 0; node < nodes.size(); node++) {
				try (Http1 http = new Http1(nodes.get(node), 5_000, 64 * 1024).keepHeaders()) {
					Http1.Response response = http.exchange("GET", "/v1/services/" + service + "/instances",
							authorization, null);
					checked.count("read " + service,
							new Answer(response.status(), response.body(), http.header("Retry-After"), null, 0, 0));
					if (response.status() == 200 && http.header("X-Ballast-Stale") == null) {
						reads.add(parse(node, response.body()));
					}
				}
				catch (IOException | RuntimeException ex) {
					// A node that does not answer now is judged by its watchers.
				}
			}
			return reads;
		}

		/**
		 * For each watched service, waits (up to 30 s) until every node reads the same
		 * revision and every watcher of it is there, then compares the watchers' states
		 * with the newest read; the watchers that differ. Nodes that still disagree are
		 * reported.
		 */
		private int settle(Map<String, Map<String, String>> registry, Map<String, Long> revisions) {
			Map<String, List<Watcher>> byService = new LinkedHashMap<>();
			watchers.forEach(w -> byService.computeIfAbsent(w.service, s -> new ArrayList<>()).add(w));
			int mismatched = 0;
			for (Map.Entry<String, List<Watcher>> entry : byService.entrySet()) {
				String service = entry.getKey();
				long deadline = System.currentTimeMillis() + 30_000;
				List<Read> reads = readAll(service);
				while (System.currentTimeMillis() < deadline && !(reads.size() == nodes.size()
						&& reads.stream().mapToLong(Read::revision).distinct().count() == 1 && entry.getValue()
							.stream()
							.allMatch(w -> w.revision() == reads.getFirst().revision))) {
					sleep(300);
					reads.clear();
					reads.addAll(readAll(service));
				}
				Read newest = reads.stream()
					.max(java.util.Comparator.comparingLong(Read::revision))
					.orElseGet(() -> read(service));
				if (reads.stream().mapToLong(Read::revision).distinct().count() > 1) {
					String each = reads.stream()
						.map(read -> "node %d at %d".formatted(read.node, read.revision))
						.collect(Collectors.joining(", "));
					disagreements.add(service + ": " + each);
					log("nodes still disagree on %s after 30 s: %s", service, each);
				}
				registry.put(service, newest.instances);
				revisions.put(service, newest.revision);
				for (Watcher watcher : entry.getValue()) {
					Map<String, String> state = watcher.state();
					if (watcher.revision() != newest.revision || !state.equals(newest.instances)) {
						mismatched++;
						String first = newest.instances.keySet()
							.stream()
							.filter(id -> !newest.instances.get(id).equals(state.get(id)))
							.findFirst()
							.map(id -> id + ": registry " + newest.instances.get(id) + ", watcher " + state.get(id))
							.orElse(state.keySet()
								.stream()
								.filter(id -> !newest.instances.containsKey(id))
								.findFirst()
								.map(id -> id + " only at the watcher")
								.orElse(""));
						log("watcher %d (%s, node %d) at revision %d, registry (node %d) at %d, %d vs %d instances; %s",
								watcher.number, service, watcher.node, watcher.revision(), newest.node, newest.revision,
								state.size(), newest.instances.size(), first);
					}
				}
			}
			return mismatched;
		}

		/**
		 * Expiries of heartbeating instances audited since the phase began, and instances
		 * of theirs not PASSING now.
		 */
		private int[] falseExpiries() {
			String since = Instant.ofEpochMilli(checked.startedAt).toString();
			int expired = 0;
			int notPassing = 0;
			for (int s = 0; s < HB_SERVICES; s++) {
				String next = "/v1/audit?service=hb-%d&since=%s&limit=1000".formatted(s, since);
				while (next != null) {
					Answer answer = reader.send("GET", next, null, null);
					checked.count("read audit", answer);
					if (!answer.ok()) {
						sleep(500);
						continue;
					}
					@SuppressWarnings("unchecked")
					Map<String, Object> page = (Map<String, Object>) Json.parse(answer.body);
					for (Object event : (List<?>) page.get("events")) {
						@SuppressWarnings("unchecked")
						Map<String, Object> fields = (Map<String, Object>) event;
						if ("instance.expire".equals(fields.get("action"))) {
							expired++;
							String id = (String) fields.get("instance");
							log("expired although it kept beating: %s at %s; its last beats: %s", id, fields.get("at"),
									heartbeats.history.get(Integer.parseInt(id.substring(2))));
							log("  audited: %s", fields);
						}
					}
					next = (String) page.get("next");
				}
				for (String fields : read("hb-" + s).instances.values()) {
					if (!fields.contains("health=PASSING")) {
						notPassing++;
					}
				}
			}
			return new int[] { expired, notPassing };
		}

	}

}
