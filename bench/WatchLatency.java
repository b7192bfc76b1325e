import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Watch-stream fan-out benchmark for Ballast: opens N server-sent event streams on one
 * service with a raw non-blocking client (a few selector threads, no thread per stream),
 * then changes instance weights at a fixed rate from one writer and measures, for every
 * (watcher, change) pair, how long after the write the watcher had the event.
 *
 * <p>
 * Run with {@code java bench/WatchLatency.java --help}. Only the JDK is used. With
 * {@code --server-pid} (a JVM on this machine) it also measures the server's heap per
 * open stream after a full GC, and its CPU and RSS during the measured window.
 *
 * <p>
 * Exit status: 0 when every watcher opened and received every change exactly in order,
 * 1 when anything failed, 2 on bad arguments.
 */
public class WatchLatency {

	record Options(URI url, int watchers, int rate, int warmupSeconds, int seconds, int instances, int openRate,
			int selectors, long serverPid, long postgresPid, int drainSeconds, int openTimeoutSeconds,
			double goalP99Millis, double goalHeapBytes, String service, String authorization) {

		static Options parse(String[] args) {
			String tag = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(0, 6);
			Map<String, String> values = new HashMap<>(Map.ofEntries(Map.entry("--url", "http://127.0.0.1:8080"),
					Map.entry("--watchers", "1000"), Map.entry("--rate", "20"), Map.entry("--warmup", "10"),
					Map.entry("--seconds", "30"), Map.entry("--instances", "4"), Map.entry("--open-rate", "500"),
					Map.entry("--selectors", "2"), Map.entry("--server-pid", "0"),
					Map.entry("--postgres-pid", "0"), Map.entry("--drain", "15"),
					Map.entry("--open-timeout", "60"), Map.entry("--goal-p99-ms", "auto"),
					Map.entry("--goal-heap-kb", "20"), Map.entry("--service", "watch-" + tag)));
			for (int i = 0; i < args.length; i++) {
				if (args[i].equals("--help") || args[i].equals("-h")) {
					usage(0, null);
				}
				if (!values.containsKey(args[i]) || i + 1 >= args.length) {
					usage(2, "unknown option or missing value: " + args[i]);
				}
				values.put(args[i], args[i + 1]);
				i++;
			}
			try {
				int watchers = positive(values, "--watchers");
				String goal = values.get("--goal-p99-ms");
				// The goals: p99 < 10 ms at 1,000 watchers, < 50 ms at 10,000.
				double goalP99 = goal.equals("auto") ? (watchers <= 1000 ? 10 : 50) : Double.parseDouble(goal);
				Options options = new Options(URI.create(values.get("--url").replaceAll("/+$", "")), watchers,
						positive(values, "--rate"), nonNegative(values, "--warmup"), positive(values, "--seconds"),
						positive(values, "--instances"), positive(values, "--open-rate"),
						positive(values, "--selectors"), Long.parseLong(values.get("--server-pid")),
						Long.parseLong(values.get("--postgres-pid")),
						positive(values, "--drain"), positive(values, "--open-timeout"), goalP99,
						Double.parseDouble(values.get("--goal-heap-kb")) * 1024, values.get("--service"),
						authorizationFromEnvironment());
				if (!options.service.matches("[a-z0-9][a-z0-9-]{0,62}")) {
					usage(2, "--service must be a lower-case service name; got " + options.service);
				}
				if (!"http".equals(options.url.getScheme()) || options.url.getPort() <= 0) {
					usage(2, "--url must be http://host:port; got " + options.url);
				}
				return options;
			}
			catch (IllegalArgumentException ex) {
				usage(2, ex.getMessage());
				return null;
			}
		}

		private static int positive(Map<String, String> values, String name) {
			int value = nonNegative(values, name);
			if (value == 0) {
				throw new IllegalArgumentException(name + " must be greater than 0");
			}
			return value;
		}

		private static int nonNegative(Map<String, String> values, String name) {
			try {
				int value = Integer.parseInt(values.get(name));
				if (value < 0) {
					throw new IllegalArgumentException(name + " must not be negative; got " + value);
				}
				return value;
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(name + " must be an integer; got " + values.get(name));
			}
		}

		private static void usage(int status, String error) {
			if (error != null) {
				System.err.println("error: " + error);
			}
			(status == 0 ? System.out : System.err).println("""
					usage: java bench/WatchLatency.java [options]
					  --url URL            Ballast base URL (default http://127.0.0.1:8080)
					  --watchers N         event streams to open on the service (default 1000)
					  --open-rate N        streams opened per second at most (default 500)
					  --selectors N        client selector threads (default 2)
					  --rate N             weight changes per second (default 20)
					  --warmup S           seconds of changes first, not measured (default 10)
					  --seconds S          measured seconds of changes (default 30)
					  --instances N        instances whose weights the writer changes in turn (default 4)
					  --drain S            seconds to wait for the last events after the last write (default 15)
					  --open-timeout S     seconds, after the last connect, for every snapshot to arrive (default 60)
					  --server-pid PID     the server's JVM: heap per watcher (jcmd GC.run + /actuator/prometheus),
					                       RSS, CPU and busiest threads in the measured window (default: not measured)
					  --postgres-pid PID   the node's PostgreSQL postmaster, to count its CPU too (default: not counted)
					  --goal-p99-ms MS     p99 goal to report against (default 10 up to 1000 watchers, else 50)
					  --goal-heap-kb KB    heap-per-watcher goal to report against, KiB (default 20)
					  --service NAME       service to create and watch (default watch-<random>)
					environment:
					  BALLAST_TOKEN        bearer token sent on every call and stream (required): operator or
					                       admin, as the writer PATCHes weights; bench/watchers.sh sets it""");
			System.exit(status);
		}

		/**
		 * From the environment rather than an option, which ps would show. Checked here:
		 * it goes into the raw watch requests as it is, where a CR or LF would split them.
		 */
		private static String authorizationFromEnvironment() {
			String token = System.getenv("BALLAST_TOKEN");
			if (token == null || !token.matches("[!-~]{1,4096}")) {
				usage(2, "BALLAST_TOKEN must hold the bearer token to send (printable ASCII, no spaces)");
			}
			return "Bearer " + token;
		}

	}

	// ---------------------------------------------------------------- the client

	static final int LINE_PREFIX = 48;

	enum Kind {

		NONE, SNAPSHOT, UPSERT, REMOVE, RECONNECT, OTHER

	}

	/**
	 * One watch stream: the HTTP/1.1 response head, the chunked framing and the SSE lines,
	 * parsed byte by byte as they arrive. Touched only by its selector thread until the
	 * threads are joined.
	 */
	static final class Watch {

		static final int HEAD = 0, CHUNK_SIZE = 1, CHUNK_EXT = 2, CHUNK_DATA = 3, CHUNK_CR = 4, CHUNK_LF = 5,
				TRAILER = 6, IDENTITY = 7, DONE = 8;

		final int number;

		final SocketChannel channel;

		ByteBuffer request;

		int phase = HEAD;

		byte[] head = new byte[512];

		int headLength;

		long chunkRemaining;

		boolean chunkSizeSeen;

		int trailerLineLength;

		// Only a line's first bytes are kept: enough for "id: <revision>" and
		// "event: snapshot"; data lines are skipped, not buffered.
		final byte[] line = new byte[LINE_PREFIX];

		int lineLength;

		boolean lineOverflow;

		boolean afterCR;

		long eventId = -1;

		Kind eventKind = Kind.NONE;

		boolean eventHasData;

		long snapshotRevision = -1;

		volatile long lastId = -1;

		long readyNanos;

		long[] received;

		long events;

		long keepalives;

		long gaps;

		long outOfOrder;

		long duplicates;

		long resyncs;

		long reconnects;

		long beyondCapacity;

		String failure;

		boolean closed;

		Watch(int number, SocketChannel channel, ByteBuffer request) {
			this.number = number;
			this.channel = channel;
			this.request = request;
		}

		boolean ready() {
			return snapshotRevision >= 0;
		}

	}

	static final class Client {

		final Options options;

		final List<Watch> watches = new ArrayList<>();

		final AtomicInteger ready = new AtomicInteger();

		final AtomicInteger failed = new AtomicInteger();

		final Map<String, AtomicInteger> failureKinds = new ConcurrentHashMap<>();

		final List<String> failureSamples = java.util.Collections.synchronizedList(new ArrayList<>());

		final int capacity;

		volatile boolean stopping;

		final List<Loop> loops = new ArrayList<>();

		Client(Options options, int capacity) {
			this.options = options;
			this.capacity = capacity;
		}

		void fail(Watch watch, String kind, String detail) {
			if (watch.failure != null) {
				return;
			}
			watch.failure = kind;
			failed.incrementAndGet();
			failureKinds.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
			if (failureSamples.size() < 5) {
				failureSamples.add("watcher " + watch.number + ": " + kind + (detail == null ? "" : " " + detail));
			}
		}

	}

	/** One selector thread and the streams it owns. */
	static final class Loop implements Runnable {

		final Client client;

		final Selector selector;

		final ConcurrentLinkedQueue<Watch> incoming = new ConcurrentLinkedQueue<>();

		final ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);

		final byte[] bytes = new byte[256 * 1024];

		final Thread thread;

		Loop(Client client, int number) throws IOException {
			this.client = client;
			this.selector = Selector.open();
			this.thread = Thread.ofPlatform().name("watch-selector-" + number).daemon().unstarted(this);
		}

		void add(Watch watch) {
			incoming.add(watch);
			selector.wakeup();
		}

		@Override
		public void run() {
			try {
				while (!client.stopping) {
					selector.select(100);
					for (Watch watch = incoming.poll(); watch != null; watch = incoming.poll()) {
						register(watch);
					}
					Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
					while (keys.hasNext()) {
						SelectionKey key = keys.next();
						keys.remove();
						Watch watch = (Watch) key.attachment();
						try {
							if (!key.isValid()) {
								continue;
							}
							if (key.isConnectable()) {
								connected(key, watch);
							}
							else if (key.isWritable()) {
								sendRequest(key, watch);
							}
							else if (key.isReadable()) {
								read(key, watch);
							}
						}
						catch (IOException ex) {
							if (!client.stopping) {
								client.fail(watch, watch.ready() ? "io-error" : "open-failed", ex.toString());
							}
							close(key, watch);
						}
					}
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private void register(Watch watch) {
			try {
				int interest = watch.channel.isConnected() ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT;
				watch.channel.register(selector, interest, watch);
			}
			catch (ClosedChannelException ex) {
				client.fail(watch, "open-failed", ex.toString());
			}
		}

		private void connected(SelectionKey key, Watch watch) throws IOException {
			if (watch.channel.finishConnect()) {
				key.interestOps(SelectionKey.OP_WRITE);
				sendRequest(key, watch);
			}
		}

		private void sendRequest(SelectionKey key, Watch watch) throws IOException {
			watch.channel.write(watch.request);
			if (!watch.request.hasRemaining()) {
				watch.request = null;
				key.interestOps(SelectionKey.OP_READ);
			}
		}

		private void read(SelectionKey key, Watch watch) throws IOException {
			// Bounded, so one busy stream cannot starve the others on this thread.
			for (int rounds = 0; rounds < 4; rounds++) {
				buffer.clear();
				int n = watch.channel.read(buffer);
				if (n < 0) {
					if (!client.stopping) {
						client.fail(watch, watch.ready() ? "closed-by-server" : "open-failed",
								"connection closed %s, %.1f s after its snapshot, at id %d".formatted(
										watch.phase == Watch.DONE ? "after the last chunk" : "mid-stream",
										watch.ready() ? (System.nanoTime() - watch.readyNanos) / 1e9 : 0.0,
										watch.lastId));
					}
					close(key, watch);
					return;
				}
				if (n == 0) {
					return;
				}
				long now = System.nanoTime();
				buffer.flip();
				buffer.get(bytes, 0, n);
				String problem = parse(watch, bytes, n, now);
				if (problem != null) {
					// "HTTP 503": the node's watcher cap (ballast.watch.max-watchers) or a slow feed.
					client.fail(watch, problem.startsWith("HTTP ") ? "http-" + problem.substring(5) : "protocol",
							problem);
					close(key, watch);
					return;
				}
				if (n < buffer.capacity()) {
					return;
				}
			}
		}

		private void close(SelectionKey key, Watch watch) {
			watch.closed = true;
			key.cancel();
			try {
				watch.channel.close();
			}
			catch (IOException ex) {
				// Closing is all that is left to do.
			}
		}

		/** Feeds bytes through the HTTP, chunk and SSE parsers; a problem ends the stream. */
		private String parse(Watch w, byte[] in, int n, long now) {
			int i = 0;
			while (i < n) {
				switch (w.phase) {
					case Watch.HEAD -> {
						byte b = in[i++];
						if (w.headLength == w.head.length) {
							if (w.head.length >= 16384) {
								return "response head longer than 16 KiB";
							}
							w.head = Arrays.copyOf(w.head, w.head.length * 2);
						}
						w.head[w.headLength++] = b;
						if (b == '\n' && w.headLength >= 4 && w.head[w.headLength - 2] == '\r'
								&& w.head[w.headLength - 3] == '\n' && w.head[w.headLength - 4] == '\r') {
							String problem = responseHead(w);
							w.head = null;
							if (problem != null) {
								return problem;
							}
						}
					}
					case Watch.CHUNK_SIZE -> {
						byte b = in[i++];
						int digit = Character.digit(b, 16);
						if (digit >= 0) {
							if (w.chunkRemaining > (Long.MAX_VALUE >> 4)) {
								return "chunk size overflows";
							}
							w.chunkRemaining = (w.chunkRemaining << 4) | digit;
							w.chunkSizeSeen = true;
						}
						else if (b == ';' || b == ' ' || b == '\t') {
							w.phase = Watch.CHUNK_EXT;
						}
						else if (b == '\r') {
							w.phase = Watch.CHUNK_EXT;
						}
						else if (b == '\n') {
							String problem = chunkSizeLine(w);
							if (problem != null) {
								return problem;
							}
						}
						else {
							return "bad byte 0x%02x in a chunk size".formatted(b & 0xff);
						}
					}
					case Watch.CHUNK_EXT -> {
						if (in[i++] == '\n') {
							String problem = chunkSizeLine(w);
							if (problem != null) {
								return problem;
							}
						}
					}
					case Watch.CHUNK_DATA -> {
						int take = (int) Math.min(w.chunkRemaining, n - i);
						String problem = sse(w, in, i, take, now);
						if (problem != null) {
							return problem;
						}
						i += take;
						w.chunkRemaining -= take;
						if (w.chunkRemaining == 0) {
							w.phase = Watch.CHUNK_CR;
						}
					}
					case Watch.CHUNK_CR -> {
						if (in[i++] != '\r') {
							return "chunk data not followed by CRLF";
						}
						w.phase = Watch.CHUNK_LF;
					}
					case Watch.CHUNK_LF -> {
						if (in[i++] != '\n') {
							return "chunk data not followed by CRLF";
						}
						w.phase = Watch.CHUNK_SIZE;
						w.chunkRemaining = 0;
						w.chunkSizeSeen = false;
					}
					case Watch.TRAILER -> {
						byte b = in[i++];
						if (b == '\n') {
							if (w.trailerLineLength == 0) {
								w.phase = Watch.DONE;
							}
							w.trailerLineLength = 0;
						}
						else if (b != '\r') {
							w.trailerLineLength++;
						}
					}
					case Watch.IDENTITY -> {
						String problem = sse(w, in, i, n - i, now);
						if (problem != null) {
							return problem;
						}
						i = n;
					}
					case Watch.DONE -> {
						return "bytes after the last chunk";
					}
					default -> throw new IllegalStateException("phase " + w.phase);
				}
			}
			return null;
		}

		private String responseHead(Watch w) {
			String head = new String(w.head, 0, w.headLength, StandardCharsets.ISO_8859_1);
			String[] lines = head.split("\r\n");
			String[] status = lines[0].split(" ", 3);
			if (status.length < 2 || !status[0].startsWith("HTTP/1.")) {
				return "not an HTTP/1.x response: " + lines[0];
			}
			if (!status[1].equals("200")) {
				// 503 when the node's watcher cap is reached.
				return "HTTP " + status[1];
			}
			boolean chunked = false;
			boolean eventStream = false;
			for (int k = 1; k < lines.length; k++) {
				String lower = lines[k].toLowerCase(Locale.ROOT);
				if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
					chunked = true;
				}
				if (lower.startsWith("content-type:") && lower.contains("text/event-stream")) {
					eventStream = true;
				}
				if (lower.startsWith("content-length:")) {
					return "a watch response with a Content-Length";
				}
			}
			if (!eventStream) {
				return "Content-Type is not text/event-stream";
			}
			w.phase = chunked ? Watch.CHUNK_SIZE : Watch.IDENTITY;
			return null;
		}

		private static String chunkSizeLine(Watch w) {
			if (!w.chunkSizeSeen) {
				return "empty chunk size line";
			}
			w.phase = w.chunkRemaining == 0 ? Watch.TRAILER : Watch.CHUNK_DATA;
			return null;
		}

		/** Server-sent event lines (WHATWG HTML): CR, LF or CRLF ends a line; a blank line an event. */
		private String sse(Watch w, byte[] in, int from, int length, long now) {
			int end = from + length;
			for (int i = from; i < end; i++) {
				byte b = in[i];
				if (b == '\n' && w.afterCR) {
					w.afterCR = false;
					continue;
				}
				w.afterCR = b == '\r';
				if (b == '\n' || b == '\r') {
					String problem = endOfLine(w, now);
					if (problem != null) {
						return problem;
					}
				}
				else if (w.lineLength < LINE_PREFIX) {
					w.line[w.lineLength++] = b;
				}
				else {
					w.lineOverflow = true;
				}
			}
			return null;
		}

		private String endOfLine(Watch w, long now) {
			int length = w.lineLength;
			boolean overflow = w.lineOverflow;
			w.lineLength = 0;
			w.lineOverflow = false;
			if (length == 0) {
				return dispatch(w, now);
			}
			byte[] l = w.line;
			if (l[0] == ':') {
				w.keepalives++;
				return null;
			}
			if (startsWith(l, length, "id")) {
				if (overflow) {
					return "an id line longer than " + LINE_PREFIX + " bytes";
				}
				int at = valueStart(l, length, 2);
				if (at < 0) {
					return null;
				}
				long id = 0;
				if (at == length) {
					return "an empty id";
				}
				for (int k = at; k < length; k++) {
					int digit = l[k] - '0';
					if (digit < 0 || digit > 9) {
						return "a non-numeric id on a single-service stream: "
								+ new String(l, 0, length, StandardCharsets.UTF_8);
					}
					id = id * 10 + digit;
				}
				w.eventId = id;
			}
			else if (startsWith(l, length, "event")) {
				int at = valueStart(l, length, 5);
				if (at < 0) {
					return null;
				}
				String name = new String(l, at, length - at, StandardCharsets.UTF_8);
				w.eventKind = switch (name) {
					case "snapshot" -> Kind.SNAPSHOT;
					case "upsert" -> Kind.UPSERT;
					case "remove" -> Kind.REMOVE;
					case "reconnect" -> Kind.RECONNECT;
					default -> Kind.OTHER;
				};
			}
			else if (startsWith(l, length, "data")) {
				if (valueStart(l, length, 4) >= 0) {
					w.eventHasData = true;
				}
			}
			return null;
		}

		/** Where the value of field {@code name} (of that length) starts, or -1 for another field. */
		private static int valueStart(byte[] l, int length, int nameLength) {
			if (length == nameLength) {
				return length;
			}
			if (l[nameLength] != ':') {
				return -1;
			}
			int at = nameLength + 1;
			return at < length && l[at] == ' ' ? at + 1 : at;
		}

		private static boolean startsWith(byte[] l, int length, String name) {
			if (length < name.length()) {
				return false;
			}
			for (int k = 0; k < name.length(); k++) {
				if (l[k] != name.charAt(k)) {
					return false;
				}
			}
			return true;
		}

		private String dispatch(Watch w, long now) {
			long id = w.eventId;
			Kind kind = w.eventKind;
			boolean data = w.eventHasData;
			w.eventId = -1;
			w.eventKind = Kind.NONE;
			w.eventHasData = false;
			if (id < 0 && kind == Kind.NONE && !data) {
				return null;
			}
			if (kind == Kind.RECONNECT) {
				w.reconnects++;
				return null;
			}
			if (id < 0) {
				return "a " + kind + " event without an id";
			}
			if (kind == Kind.SNAPSHOT) {
				if (w.snapshotRevision < 0) {
					w.snapshotRevision = id;
					w.lastId = id;
					w.readyNanos = now;
					w.received = new long[client.capacity];
					client.ready.incrementAndGet();
				}
				else {
					// The node replaces a backlog with a fresh snapshot when a stream falls a
					// whole queue behind: the events in between were never sent.
					w.resyncs++;
					w.lastId = Math.max(w.lastId, id);
				}
				return null;
			}
			if (w.snapshotRevision < 0) {
				return "a " + kind + " event (id " + id + ") before the snapshot";
			}
			w.events++;
			long last = w.lastId;
			if (id <= last) {
				w.outOfOrder++;
			}
			else {
				if (id != last + 1) {
					w.gaps += id - last - 1;
				}
				w.lastId = id;
			}
			long index = id - w.snapshotRevision - 1;
			if (index >= 0 && index < w.received.length) {
				if (w.received[(int) index] == 0) {
					w.received[(int) index] = now;
				}
				else {
					w.duplicates++;
				}
			}
			else {
				w.beyondCapacity++;
			}
			return null;
		}

	}

	// ---------------------------------------------------------------- the writer

	/** One weight change; written by the writer thread, read after it finished. */
	static final class Write {

		boolean measured;

		long scheduledNanos;

		long sentNanos;

		long ackedNanos;

		long revision = -1;

		String failure;

	}

	static final Pattern REVISION = Pattern.compile("\"revision\"\\s*:\\s*(\\d+)");

	static final Pattern WEIGHT = Pattern.compile("\"weight\"\\s*:\\s*(\\d+)");

	// ---------------------------------------------------------------- main

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		int warmupWrites = options.rate * options.warmupSeconds;
		int totalWrites = warmupWrites + options.rate * options.seconds;
		System.out.printf(Locale.ROOT,
				"WatchLatency: %d watchers on service %s at %s (opened at <= %d/s by %d selector threads); "
						+ "then %d weight changes/s over %d instances, %d s warm-up + %d s measured%n",
				options.watchers, options.service, options.url, options.openRate, options.selectors, options.rate,
				options.instances, options.warmupSeconds, options.seconds);

		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		register(options, http);

		ServerProbe probe = options.serverPid > 0 ? new ServerProbe(options, http) : null;
		Map<String, long[]> classesBefore = probe == null ? null : probe.histogram();
		double heapBefore = probe == null ? Double.NaN : probe.heapAfterFullGc();

		// Room for every write plus a few revisions from elsewhere (none are expected).
		Client client = new Client(options, totalWrites + 256);
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

		Write[] writes = new Write[totalWrites];
		ProbeWindow window = probe == null ? null : new ProbeWindow();
		write(options, http, writes, warmupWrites, probe, window);
		long lastRevision = Arrays.stream(writes).mapToLong(w -> w.revision).max().orElse(-1);
		boolean drained = drain(options, client, lastRevision);
		if (window != null) {
			window.end(probe);
		}

		client.stopping = true;
		for (Loop loop : client.loops) {
			loop.selector.wakeup();
		}
		for (Loop loop : client.loops) {
			loop.thread.join(5000);
		}
		for (Watch watch : client.watches) {
			try {
				watch.channel.close();
			}
			catch (IOException ex) {
				// The run is over.
			}
		}

		boolean ok = report(options, client, writes, opened, drained, heapBefore, heapAfter, probe, window);
		if (probe != null) {
			System.out.print(ServerProbe.growth(classesBefore, classesAfter, opened));
		}
		System.exit(ok ? 0 : 1);
	}

	private static void register(Options options, HttpClient http) throws IOException, InterruptedException {
		for (int k = 0; k < options.instances; k++) {
			URI uri = URI.create(options.url + "/v1/services/" + options.service + "/instances/i-" + k);
			// The longest lease the node accepts: no lease may lapse during the run, since
			// that would be a change (and an event) the writer did not make.
			String body = "{\"address\":\"10.0.0.%d\",\"port\":8080,\"weight\":10000,\"leaseTtlSeconds\":300}"
				.formatted(k + 1);
			HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.header("Authorization", options.authorization)
				.PUT(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 201 && response.statusCode() != 200) {
				System.err.println("error: PUT " + uri + " answered " + response.statusCode() + ": " + response.body());
				System.exit(1);
			}
		}
	}

	private static void openAll(Options options, Client client) throws IOException, InterruptedException {
		for (int s = 0; s < options.selectors; s++) {
			Loop loop = new Loop(client, s);
			client.loops.add(loop);
			loop.thread.start();
		}
		InetSocketAddress address = new InetSocketAddress(options.url.getHost(), options.url.getPort());
		byte[] request = ("GET /v1/services/" + options.service + "/watch HTTP/1.1\r\n" + "Host: "
				+ options.url.getAuthority() + "\r\n" + "Authorization: " + options.authorization + "\r\n"
				+ "Accept: text/event-stream\r\n"
				+ "User-Agent: ballast-bench-watch-latency\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		long period = TimeUnit.SECONDS.toNanos(1) / options.openRate;
		long started = System.nanoTime();
		for (int i = 0; i < options.watchers; i++) {
			// Paced, so the node's accept queue (Tomcat's accept-count, 100) is never overrun.
			parkUntil(started + i * period);
			SocketChannel channel = SocketChannel.open();
			Watch watch = new Watch(i, channel, ByteBuffer.wrap(request));
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
		long deadline = connectsDone + TimeUnit.SECONDS.toNanos(options.openTimeoutSeconds);
		while (client.ready.get() + client.failed.get() < options.watchers && System.nanoTime() < deadline) {
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
				ready, options.watchers, (lastReady - started) / 1e9, (connectsDone - started) / 1e9,
				client.failed.get(), ready + client.failed.get() < options.watchers
						? ", %d still without a snapshot after %d s".formatted(
								options.watchers - ready - client.failed.get(), options.openTimeoutSeconds)
						: "");
	}

	/**
	 * One writer thread, open loop: change j is sent at start + j / rate whatever the
	 * earlier ones took (a slow answer does not hold back the next change; the client opens
	 * another connection for it), so a slow node is not given a lighter load. Returns once
	 * every change is answered.
	 */
	private static void write(Options options, HttpClient http, Write[] writes, int warmupWrites, ServerProbe probe,
			ProbeWindow window) {
		long period = TimeUnit.SECONDS.toNanos(1) / options.rate;
		long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
		long lastRenewal = start - 2 * RENEW_EVERY_NANOS;
		List<CompletableFuture<?>> answers = new ArrayList<>(writes.length);
		for (int j = 0; j < writes.length; j++) {
			Write write = new Write();
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
			int k = j % options.instances;
			// Each round of an instance has its own weight (registered at 10000), so every
			// PATCH is a real change, a new revision and one event, even when two PATCHes of
			// one instance overtake each other.
			int weight = 1 + (j / options.instances) % 9999;
			URI uri = URI.create(options.url + "/v1/services/" + options.service + "/instances/i-" + k);
			HttpRequest request = HttpRequest.newBuilder(uri)
				.timeout(Duration.ofSeconds(10))
				.header("Content-Type", "application/json")
				.header("Authorization", options.authorization)
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

	private static void renewLeases(Options options, HttpClient http) {
		for (int k = 0; k < options.instances; k++) {
			URI uri = URI.create(options.url + "/v1/services/" + options.service + "/instances/i-" + k + "/heartbeat");
			try {
				http.send(HttpRequest.newBuilder(uri)
					.timeout(Duration.ofSeconds(10))
					.header("Authorization", options.authorization)
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
	private static boolean drain(Options options, Client client, long lastRevision) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.drainSeconds);
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

	// ---------------------------------------------------------------- the report

	private static boolean report(Options options, Client client, Write[] writes, int opened, boolean drained,
			double heapBefore, double heapAfter, ServerProbe probe, ProbeWindow window) {
		List<Watch> open = client.watches.stream().filter(Watch::ready).toList();
		long writeFailures = Arrays.stream(writes).filter(w -> w.failure != null).count();
		long measuredWrites = Arrays.stream(writes).filter(w -> w.measured && w.failure == null).count();
		long allWrites = Arrays.stream(writes).filter(w -> w.failure == null).count();
		// Two acknowledgements with one revision would mean a PATCH changed nothing.
		long sharedRevisions = allWrites
				- Arrays.stream(writes).filter(w -> w.failure == null).mapToLong(w -> w.revision).distinct().count();
		long lateStarts = Arrays.stream(writes)
			.filter(w -> w.sentNanos - w.scheduledNanos > TimeUnit.SECONDS.toNanos(1) / options.rate)
			.count();
		long writeMax = Arrays.stream(writes)
			.filter(w -> w.failure == null)
			.mapToLong(w -> w.ackedNanos - w.sentNanos)
			.max()
			.orElse(-1);
		long[] writeLatencies = Arrays.stream(writes)
			.filter(w -> w.measured && w.failure == null)
			.mapToLong(w -> w.ackedNanos - w.sentNanos)
			.sorted()
			.toArray();

		int pairs = (int) Math.min(Integer.MAX_VALUE - 8, (long) open.size() * measuredWrites);
		long[] fromAck = new long[pairs];
		long[] fromSend = new long[pairs];
		int n = 0;
		long missingMeasured = 0;
		long missingAll = 0;
		long beforeAck = 0;
		long[] spreads = new long[writes.length];
		int spreadCount = 0;
		for (Write write : writes) {
			if (write.failure != null) {
				continue;
			}
			long first = Long.MAX_VALUE;
			long lastAt = Long.MIN_VALUE;
			for (Watch watch : open) {
				long index = write.revision - watch.snapshotRevision - 1;
				long at = index >= 0 && index < watch.received.length ? watch.received[(int) index] : 0;
				if (index < 0) {
					// The snapshot already held this change (not expected: the writes start
					// after every snapshot arrived).
					continue;
				}
				if (at == 0) {
					missingAll++;
					if (write.measured) {
						missingMeasured++;
					}
					continue;
				}
				if (!write.measured) {
					continue;
				}
				first = Math.min(first, at);
				lastAt = Math.max(lastAt, at);
				long ack = at - write.ackedNanos;
				if (ack < 0) {
					beforeAck++;
					ack = 0;
				}
				fromAck[n] = ack;
				fromSend[n] = at - write.sentNanos;
				n++;
			}
			if (first <= lastAt) {
				spreads[spreadCount++] = lastAt - first;
			}
		}
		spreads = Arrays.copyOf(spreads, spreadCount);
		Arrays.sort(spreads);
		Write[] measuredSent = Arrays.stream(writes).filter(w -> w.measured).toArray(Write[]::new);
		double sentRate = measuredSent.length < 2 ? Double.NaN : (measuredSent.length - 1) * 1e9
				/ (measuredSent[measuredSent.length - 1].sentNanos - measuredSent[0].sentNanos);
		fromAck = Arrays.copyOf(fromAck, n);
		fromSend = Arrays.copyOf(fromSend, n);
		Arrays.sort(fromAck);
		Arrays.sort(fromSend);

		long gaps = open.stream().mapToLong(w -> w.gaps).sum();
		long outOfOrder = open.stream().mapToLong(w -> w.outOfOrder).sum();
		long duplicates = open.stream().mapToLong(w -> w.duplicates).sum();
		long resyncs = open.stream().mapToLong(w -> w.resyncs).sum();
		long reconnects = open.stream().mapToLong(w -> w.reconnects).sum();
		long beyond = open.stream().mapToLong(w -> w.beyondCapacity).sum();
		long events = open.stream().mapToLong(w -> w.events).sum();
		long keepalives = open.stream().mapToLong(w -> w.keepalives).sum();
		long expectedAll = open.size() * allWrites;
		long expectedMeasured = open.size() * measuredWrites;
		long foreign = events - (expectedAll - missingAll) - duplicates;

		StringBuilder out = new StringBuilder();
		out.append("\n==== Ballast watch fan-out benchmark ====\n");
		line(out, "target", options.url + "/v1/services/" + options.service + "/watch");
		line(out, "watchers opened", "%d of %d (%d failed: %s)".formatted(opened, options.watchers,
				client.failed.get(), client.failureKinds.isEmpty() ? "none" : client.failureKinds));
		line(out, "still open at end", "%d".formatted(open.stream().filter(w -> !w.closed).count()));
		line(out, "writes", "%d ok of %d (%d failed), %d measured, sent at %.1f/s; %d sent over one period late; "
			.formatted(allWrites, writes.length, writeFailures, measuredWrites, sentRate, lateStarts)
				+ "PATCH p50 %s, p99 %s, max %s".formatted(millis(percentile(writeLatencies, 50)),
						millis(percentile(writeLatencies, 99)), millis(writeMax))
				+ (sharedRevisions == 0 ? "" : "; %d acknowledged an already used revision".formatted(sharedRevisions)));
		line(out, "events (measured)", "expected %d, received %d, missing %d".formatted(expectedMeasured,
				expectedMeasured - missingMeasured, missingMeasured));
		line(out, "events (all)", "expected %d, received %d, missing %d; %d other revisions, %d keepalives"
			.formatted(expectedAll, expectedAll - missingAll, missingAll, foreign, keepalives));
		line(out, "order", "%d gaps, %d out of order, %d duplicates, %d fresh snapshots (resyncs), %d reconnects%s"
			.formatted(gaps, outOfOrder, duplicates, resyncs, reconnects,
					beyond == 0 ? "" : ", %d ids beyond the expected range".formatted(beyond)));
		line(out, "drained", drained ? "every open watcher reached the last revision"
				: "NOT every watcher reached the last revision within %d s".formatted(options.drainSeconds));
		line(out, "latency from ack",
				"p50 %s, p99 %s, p99.9 %s, max %s  (%d of %d pairs arrived before the ack and count as 0)".formatted(
						millis(percentile(fromAck, 50)), millis(percentile(fromAck, 99)),
						millis(percentile(fromAck, 99.9)), millis(last(fromAck)), beforeAck, n));
		line(out, "latency from send", "p50 %s, p99 %s, p99.9 %s, max %s".formatted(millis(percentile(fromSend, 50)),
				millis(percentile(fromSend, 99)), millis(percentile(fromSend, 99.9)), millis(last(fromSend))));
		// How long one change takes to reach every watcher: the node writes the streams one
		// after another, and this client reads them one after another.
		line(out, "fan-out spread", "first to last watcher per change: p50 %s, p99 %s, max %s".formatted(
				millis(percentile(spreads, 50)), millis(percentile(spreads, 99)), millis(last(spreads))));
		long p99 = percentile(fromAck, 99);
		line(out, "goal p99", "< %s ms from ack: %s".formatted(number(options.goalP99Millis),
				p99 < 0 ? "n/a" : p99 / 1e6 < options.goalP99Millis ? "met" : "NOT met"));
		if (probe != null) {
			double perWatcher = opened == 0 ? Double.NaN : (heapAfter - heapBefore) / opened;
			line(out, "server heap", "%.1f MB before, %.1f MB with %d watchers open (after a full GC each)"
				.formatted(heapBefore / 1048576, heapAfter / 1048576, opened));
			line(out, "heap per watcher", "%.0f bytes (%.1f KiB); goal <= %s KiB: %s".formatted(perWatcher,
					perWatcher / 1024, number(options.goalHeapBytes / 1024),
					perWatcher <= options.goalHeapBytes ? "met" : "NOT met"));
			out.append(window.describe(options));
		}
		boolean ok = opened == options.watchers && client.failed.get() == 0 && writeFailures == 0 && sharedRevisions == 0
				&& missingAll == 0 && gaps == 0 && outOfOrder == 0 && duplicates == 0 && resyncs == 0
				&& reconnects == 0 && beyond == 0 && drained && measuredWrites > 0;
		line(out, "result", ok ? "PASS (every watcher received every change, in order)" : "FAIL");
		out.append("=========================================\n");
		System.out.print(out);
		for (String sample : client.failureSamples) {
			System.out.println("failure sample: " + sample);
		}
		Arrays.stream(writes)
			.filter(w -> w.failure != null)
			.limit(3)
			.forEach(w -> System.out.println("failure sample: " + w.failure));
		return ok;
	}

	private static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return -1;
		}
		int rank = (int) Math.ceil(p / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	private static long last(long[] sorted) {
		return sorted.length == 0 ? -1 : sorted[sorted.length - 1];
	}

	private static String millis(long nanos) {
		return nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
	}

	private static String number(double value) {
		return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
	}

	private static void line(StringBuilder out, String label, String value) {
		out.append(String.format(Locale.ROOT, "%-19s %s%n", label + ":", value));
	}

	// ---------------------------------------------------------------- the server, seen from outside

	/** The server JVM through jcmd, /proc and its Prometheus endpoint. */
	static final class ServerProbe {

		final Options options;

		final HttpClient http;

		final long ticksPerSecond;

		ServerProbe(Options options, HttpClient http) {
			this.options = options;
			this.http = http;
			this.ticksPerSecond = clockTicks();
		}

		/** Used heap after a full GC, as the server's own metrics report it. */
		double heapAfterFullGc() throws IOException, InterruptedException {
			Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
			Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid), "GC.run")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!gc.waitFor(60, TimeUnit.SECONDS) || gc.exitValue() != 0) {
				throw new IllegalStateException("jcmd " + options.serverPid + " GC.run failed");
			}
			// The gauge is read from the memory pools at scrape time, so right after the GC
			// it shows what survived (plus what the scrape itself allocates).
			Thread.sleep(500);
			HttpResponse<Stream<String>> response = http.send(
					HttpRequest.newBuilder(URI.create(options.url + "/actuator/prometheus"))
						.timeout(Duration.ofSeconds(10))
						.header("Authorization", options.authorization)
						.build(),
					HttpResponse.BodyHandlers.ofLines());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("/actuator/prometheus answered " + response.statusCode());
			}
			return response.body()
				.filter(l -> l.startsWith("jvm_memory_used_bytes{") && l.contains("area=\"heap\""))
				.mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
				.sum();
		}

		/** Class -> {instances, bytes} of live objects (the histogram runs a full GC first). */
		Map<String, long[]> histogram() throws IOException, InterruptedException {
			Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
			Process process = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid),
					"GC.class_histogram")
				.redirectErrorStream(true)
				.start();
			Map<String, long[]> classes = new HashMap<>();
			Pattern row = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
			try (var lines = process.inputReader().lines()) {
				lines.forEach(l -> {
					Matcher m = row.matcher(l);
					if (m.find()) {
						classes.put(m.group(3), new long[] { Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) });
					}
				});
			}
			if (!process.waitFor(60, TimeUnit.SECONDS)) {
				process.destroy();
			}
			return classes;
		}

		/** Which classes the open streams added, per stream: where the heap per watcher goes. */
		static String growth(Map<String, long[]> before, Map<String, long[]> after, int watchers) {
			if (before == null || after == null || before.isEmpty() || after.isEmpty() || watchers == 0) {
				return "";
			}
			List<Map.Entry<String, long[]>> grown = new ArrayList<>();
			after.forEach((name, a) -> {
				long[] b = before.getOrDefault(name, new long[2]);
				grown.add(Map.entry(name, new long[] { a[0] - b[0], a[1] - b[1] }));
			});
			grown.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
			long total = grown.stream().mapToLong(e -> e.getValue()[1]).sum();
			StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
					"heap growth by class (GC.class_histogram, %d watchers): %.0f bytes per watcher in all; largest:%n",
					watchers, total / (double) watchers));
			for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(12, grown.size()))) {
				out.append(String.format(Locale.ROOT, "  %8.0f B/watcher %6.2f objects/watcher  %s%n",
						e.getValue()[1] / (double) watchers, e.getValue()[0] / (double) watchers, e.getKey()));
			}
			return out.toString();
		}

		/** utime + stime of a /proc stat line, in seconds. */
		double cpuSeconds(Path stat) {
			try {
				String text = Files.readString(stat);
				String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
				// Fields 14 and 15 of proc(5); the split starts at field 3.
				return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) ticksPerSecond;
			}
			catch (IOException | RuntimeException ex) {
				return 0;
			}
		}

		static String threadName(Path stat) {
			try {
				String text = Files.readString(stat);
				return text.substring(text.indexOf('(') + 1, text.lastIndexOf(')'));
			}
			catch (IOException ex) {
				return "?";
			}
		}

		Map<String, Double> threads() {
			Map<String, Double> cpu = new HashMap<>();
			try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(options.serverPid), "task"))) {
				tasks.forEach(task -> cpu.put(task.getFileName() + " " + threadName(task.resolve("stat")),
						cpuSeconds(task.resolve("stat"))));
			}
			catch (IOException ex) {
				// The server is gone; the report says so through the missing figures.
			}
			return cpu;
		}

		/**
		 * CPU seconds of the PostgreSQL postmaster and its backends. The embedded server
		 * detaches from the JVM (its parent is init), so it is named separately. Backends
		 * that exit within the window take their time with them; the pool's connections
		 * live for the whole run.
		 */
		double postgresSeconds() {
			if (options.postgresPid <= 0) {
				return Double.NaN;
			}
			return ProcessHandle.of(options.postgresPid)
				.stream()
				.flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
				.mapToDouble(p -> cpuSeconds(Path.of("/proc", Long.toString(p.pid()), "stat")))
				.sum();
		}

		/** Java thread names by native thread id: /proc truncates names to 15 characters. */
		Map<String, String> javaThreadNames() {
			Map<String, String> names = new HashMap<>();
			Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
			Pattern header = Pattern.compile("^\"(.*)\" #\\d+ .*\\[(\\d+)\\]");
			try {
				Process process = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid), "Thread.print")
					.redirectErrorStream(true)
					.start();
				try (var lines = process.inputReader().lines()) {
					lines.forEach(l -> {
						Matcher m = header.matcher(l);
						if (m.find()) {
							names.put(m.group(2), m.group(1));
						}
					});
				}
				process.waitFor(30, TimeUnit.SECONDS);
			}
			catch (IOException ex) {
				// The /proc names are used instead.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return names;
		}

		String rss() {
			try {
				return Files.readAllLines(Path.of("/proc", Long.toString(options.serverPid), "status"))
					.stream()
					.filter(l -> l.startsWith("VmRSS:"))
					.map(l -> l.substring(6).trim())
					.findFirst()
					.orElse("?");
			}
			catch (IOException ex) {
				return "?";
			}
		}

		private static long clockTicks() {
			try {
				Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
				String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
				p.waitFor();
				return Long.parseLong(out);
			}
			catch (IOException | RuntimeException | InterruptedException ex) {
				return 100;
			}
		}

	}

	/** CPU and memory of the server (and of this client) over the measured window. */
	static final class ProbeWindow {

		long beganNanos;

		long endedNanos;

		double serverBegin;

		double serverEnd;

		double postgresBegin;

		double postgresEnd;

		double selfBegin;

		double selfEnd;

		Map<String, Double> threadsBegin;

		Map<String, Double> threadsEnd;

		String rss;

		Map<String, String> javaNames = Map.of();

		void begin(ServerProbe probe) {
			beganNanos = System.nanoTime();
			serverBegin = probe.cpuSeconds(Path.of("/proc", Long.toString(probe.options.serverPid), "stat"));
			postgresBegin = probe.postgresSeconds();
			selfBegin = probe.cpuSeconds(Path.of("/proc/self/stat"));
			threadsBegin = probe.threads();
		}

		void end(ServerProbe probe) {
			endedNanos = System.nanoTime();
			serverEnd = probe.cpuSeconds(Path.of("/proc", Long.toString(probe.options.serverPid), "stat"));
			postgresEnd = probe.postgresSeconds();
			selfEnd = probe.cpuSeconds(Path.of("/proc/self/stat"));
			threadsEnd = probe.threads();
			rss = probe.rss();
			javaNames = probe.javaThreadNames();
		}

		String describe(Options options) {
			double seconds = (endedNanos - beganNanos) / 1e9;
			StringBuilder out = new StringBuilder();
			line(out, "server RSS", rss + " at the end of the measured window");
			line(out, "CPU, measured", ("%.1f s (first measured write to last event read): server JVM %.1f s "
					+ "(%.0f%% of one core), its PostgreSQL %.1f s, ").formatted(seconds, serverEnd - serverBegin,
							100 * (serverEnd - serverBegin) / seconds, postgresEnd - postgresBegin)
					+ "this client %.1f s".formatted(selfEnd - selfBegin));
			List<Map.Entry<String, Double>> busiest = new ArrayList<>();
			threadsEnd.forEach((thread, end) -> busiest
				.add(Map.entry(thread, end - threadsBegin.getOrDefault(thread, 0.0))));
			busiest.sort(Map.Entry.<String, Double>comparingByValue().reversed());
			Map<String, String> top = new LinkedHashMap<>();
			for (Map.Entry<String, Double> entry : busiest.subList(0, Math.min(6, busiest.size()))) {
				String tid = entry.getKey().substring(0, entry.getKey().indexOf(' '));
				top.put(javaNames.getOrDefault(tid, entry.getKey().substring(tid.length() + 1)),
						"%.1f s".formatted(entry.getValue()));
			}
			line(out, "busiest threads", "CPU s in the window: " + top.toString().replaceAll("[{}]", ""));
			return out.toString();
		}

	}

}
