package dev.ballast.watch;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ballast.client.EventStreamReader;
import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two nodes on one PostgreSQL. The other node runs with short timers and small limits, to
 * show keepalives, age limits, caps and resuming beyond its memory.
 */
@RegistryTest
class TwoNodesWatchTest {

	static final Duration SOON = Duration.ofSeconds(5);

	static final int CAP = 6;

	static OtherNode other;

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@BeforeAll
	static void startOtherNode() {
		other = OtherNode.start("ballast.watch.keepalive=1s", "ballast.watch.max-age=3s",
				"ballast.watch.max-age-jitter=0s", "ballast.watch.recent-changes=2",
				"ballast.watch.max-watchers=" + CAP, "ballast.watch.subscriber-ttl=2s");
	}

	@AfterAll
	static void stopOtherNode() {
		other.close();
	}

	@Test
	void eachNodeDeliversTheOthersChanges() {
		Api here = Api.on(port);
		Api there = Api.on(other.port());
		String service = Names.service("nodes");
		here.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		try (EventStream onOther = EventStream.open(other.port(), "/v1/services/%s/watch".formatted(service), null);
				EventStream onThis = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(onOther.nextEvent(SOON).name()).isEqualTo("snapshot");
			assertThat(onThis.nextEvent(SOON).name()).isEqualTo("snapshot");
			here.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":7}");
			Event seenThere = onOther.nextEvent(SOON);
			assertThat(seenThere.id()).isEqualTo("2");
			assertThat(seenThere.json().get("weight").asInt()).isEqualTo(7);
			there.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 81));
			assertThat(onThis.nextEvent(SOON).id()).isEqualTo("2");
			Event seenHere = onThis.nextEvent(SOON);
			assertThat(seenHere.id()).isEqualTo("3");
			assertThat(seenHere.json().get("id").asString()).isEqualTo("b");
		}
	}

	/**
	 * A node learns of another node's write through PostgreSQL's notification, not a
	 * timer: the bound is loose for a loaded machine, and a poll of a few hundred
	 * milliseconds (the catch-up timer, a notification wait) fails it. Written on the
	 * other node, watched on this one (the other node ends its streams after 3 s).
	 */
	@Test
	void aWriteOnOneNodeReachesAWatcherOnTheOtherWithinMilliseconds() {
		List<Long> millis = new ArrayList<>();
		List<Long> written = new ArrayList<>();
		try (WatchedInstance watched = WatchedInstance.open(Api.on(other.port()), port, "crossnode")) {
			for (int weight = 1; weight <= 25; weight++) {
				WatchedInstance.Delivery delivery = watched.patchWeight(weight);
				assertThat(delivery.event().name()).isEqualTo("upsert");
				assertThat(delivery.event().json().get("weight").asInt()).isEqualTo(weight);
				// The first few warm both nodes' code paths up.
				if (weight > 5) {
					millis.add(delivery.eventMillis());
					written.add(delivery.writeMillis());
				}
				WatchedInstance.pause(Duration.ofMillis(ThreadLocalRandom.current().nextInt(20, 60)));
			}
		}
		List<Long> sorted = millis.stream().sorted().toList();
		List<Long> writes = written.stream().sorted().toList();
		System.out.printf(
				"cross-node write -> event over %d writes, from the acknowledgement: median %d ms, max %d ms "
						+ "(the writes themselves: median %d ms, max %d ms)%n",
				sorted.size(), sorted.get(sorted.size() / 2), sorted.getLast(), writes.get(writes.size() / 2),
				writes.getLast());
		assertThat(sorted.get(sorted.size() / 2))
			.as("median milliseconds from a write's acknowledgement to its event on the other node, of %s", millis)
			.isLessThan(100);
	}

	@Test
	void concurrentWritersOnBothNodesReachAWatcherInOrderWithoutGaps() throws Exception {
		String service = Names.service("folded");
		Api here = Api.on(port);
		here.put("/v1/services/%s/instances/seed".formatted(service), Registration.at("h", 80));
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			Event snapshot = stream.nextEvent(SOON);
			Map<String, JsonNode> folded = new TreeMap<>();
			snapshot.json().get("instances").forEach(instance -> folded.put(instance.get("id").asString(), instance));
			long revision = Long.parseLong(snapshot.id());

			int writers = 8;
			int writesEach = 40;
			ExecutorService pool = Executors.newFixedThreadPool(writers);
			List<Future<?>> done = new ArrayList<>();
			ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
			for (int w = 0; w < writers; w++) {
				Api api = w % 2 == 0 ? here : Api.on(other.port());
				int writer = w;
				done.add(pool.submit(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < writesEach; i++) {
						String id = "i" + random.nextInt(6);
						String path = "/v1/services/%s/instances/%s".formatted(service, id);
						int status = switch (random.nextInt(3)) {
							case 0 -> api.delete(path).status();
							default -> api.put(path, Registration.at("h", 80).weight(writer * 100 + i)).status();
						};
						statuses.add(status);
					}
				}));
			}
			for (Future<?> future : done) {
				future.get(60, TimeUnit.SECONDS);
			}
			pool.shutdown();
			// 409: the guard refusing a re-registration that lowers a weight past the
			// budget.
			assertThat(statuses)
				.allMatch(status -> status == 200 || status == 201 || status == 204 || status == 404 || status == 409);

			long last = jdbc.sql("SELECT revision FROM service WHERE name = ?")
				.param(service)
				.query(Long.class)
				.single();
			while (revision < last) {
				Event event = stream.nextEvent(SOON);
				long id = Long.parseLong(event.id());
				assertThat(id).as("no gap, no reordering, no duplicate").isEqualTo(revision + 1);
				revision = id;
				switch (event.name()) {
					case "upsert" -> folded.put(event.json().get("id").asString(), event.json());
					case "remove" -> folded.remove(event.json().get("id").asString());
					default -> throw new AssertionError("unexpected event " + event);
				}
			}
			JsonNode state = here.get("/v1/services/%s/instances".formatted(service)).json();
			assertThat(state.get("revision").asLong()).isEqualTo(last);
			Map<String, Integer> expected = new TreeMap<>();
			state.get("instances").forEach(i -> expected.put(i.get("id").asString(), i.get("weight").asInt()));
			Map<String, Integer> actual = new TreeMap<>();
			folded.forEach((id, instance) -> actual.put(id, instance.get("weight").asInt()));
			assertThat(actual).isEqualTo(expected);
		}
	}

	@Test
	void sendsKeepalivesAndEndsOldStreamsWithAReconnectEventThatResumesSeamlessly() {
		Api api = Api.on(port);
		String service = Names.service("aging");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		String path = "/v1/services/%s/watch".formatted(service);
		String last;
		try (EventStream stream = EventStream.open(other.port(), path, null)) {
			last = stream.nextEvent(SOON).id();
			Event keepalive = stream.next(Duration.ofSeconds(3));
			assertThat(keepalive.comment()).isTrue();
			assertThat(keepalive.data()).isEqualTo("keepalive");
			Event reconnect = stream.nextEvent(Duration.ofSeconds(5));
			assertThat(reconnect.name()).isEqualTo("reconnect");
			assertThat(reconnect.json().get("reason").asString()).isEqualTo("max-age");
			assertThat(stream.nextEvent(SOON).end()).as("the server closed the stream").isTrue();
		}
		api.patch("/v1/services/%s/instances/a".formatted(service), "{\"weight\":9}");
		try (EventStream resumed = EventStream.open(other.port(), path, last)) {
			Event next = resumed.nextEvent(SOON);
			assertThat(next.name()).isEqualTo("upsert");
			assertThat(next.id()).isEqualTo("2");
		}
	}

	@Test
	void resumesFromTheChangeLogBeyondMemoryAndFromASnapshotBeyondRetention() {
		Api api = Api.on(port);
		String service = Names.service("retained");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80).weight(1));
		String path = "/v1/services/%s/watch".formatted(service);
		try (EventStream stream = EventStream.open(other.port(), path, null)) {
			assertThat(stream.nextEvent(SOON).id()).isEqualTo("1");
			for (int weight = 2; weight <= 6; weight++) {
				api.patch(a, "{\"weight\":%d}".formatted(weight));
			}
			assertThat(stream.nextEvent(SOON).id()).isEqualTo("2");
		}
		// The other node keeps two changes in memory; the other three come from the log.
		try (EventStream resumed = EventStream.open(other.port(), path, "1")) {
			for (int revision = 2; revision <= 6; revision++) {
				Event event = resumed.nextEvent(SOON);
				assertThat(event.name()).isEqualTo("upsert");
				assertThat(event.id()).isEqualTo(Long.toString(revision));
				assertThat(event.json().get("weight").asInt()).isEqualTo(revision);
			}
		}
		jdbc.sql("DELETE FROM change_log WHERE service = ? AND revision <= 3").param(service).update();
		try (EventStream tooOld = EventStream.open(other.port(), path, "1")) {
			Event snapshot = tooOld.nextEvent(SOON);
			assertThat(snapshot.name()).isEqualTo("snapshot");
			assertThat(snapshot.id()).isEqualTo("6");
			assertThat(snapshot.json().get("instances").get(0).get("weight").asInt()).isEqualTo(6);
		}
	}

	@Test
	void shedsWatchersPastTheCapWith503AndRetryAfter() {
		Api api = Api.on(port);
		String service = Names.service("capped");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		String path = "/v1/services/%s/watch".formatted(service);
		List<EventStream> open = new ArrayList<>();
		try {
			// Streams of other tests may still count until their next keepalive.
			int free = CAP - other.bean(WatcherCap.class).open();
			for (int i = 0; i < free; i++) {
				EventStream stream = EventStream.open(other.port(), path, null);
				open.add(stream);
				assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
			}
			Api.Reply refused = Api.on(other.port()).get(path);
			assertThat(refused.status()).isEqualTo(503);
			assertThat(refused.header("Retry-After"))
				.hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 60));
			Api.Reply blocking = Api.on(other.port())
				.get("/v1/services/%s/instances?index=1&wait=5s".formatted(service));
			assertThat(blocking.status()).as("blocking queries count too").isEqualTo(503);
		}
		finally {
			open.forEach(EventStream::close);
		}
		// A client that went away is noticed at the next keepalive writes, which frees
		// its place.
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> other.bean(WatcherCap.class).open() == 0);
	}

	@Test
	void aDroppedNotificationConnectionOnlyDelaysEvents() {
		Api api = Api.on(port);
		String service = Names.service("relisten");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80));
		try (EventStream stream = EventStream.open(other.port(), "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
			// The listening connection's last statement is its LISTEN, or its ping after
			// a quiet spell of 10 s.
			int killed = jdbc.sql(
					"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' OR query = 'SELECT 1'")
				.query(Integer.class)
				.single();
			assertThat(killed).isPositive();
			api.patch(a, "{\"weight\":3}");
			Event event = stream.nextEvent(Duration.ofSeconds(10));
			assertThat(event.id()).isEqualTo("2");
			assertThat(event.json().get("weight").asInt()).isEqualTo(3);
		}
	}

	@Test
	void aWatcherThatStopsReadingDelaysNoOtherAndCatchesUpWithASnapshot() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("slow");
		String a = "/v1/services/%s/instances/a".formatted(service);
		// A lease that outlives the test: on a loaded machine the 200 writes can take
		// longer than the default 30 s, and the expiry's own event (same weight, health
		// CRITICAL) then looked like a duplicate upsert to the fast watcher.
		api.put(a, Registration.at("h", 80).leaseTtlSeconds(300));
		String path = "/v1/services/%s/watch".formatted(service);
		String bulky = bulkyMetadata();
		// The slow watcher reads nothing until the writes are done, which on a loaded
		// machine can take longer than the stall timeout (30 s) and than Tomcat's write
		// timeout (the connection timeout, 10 s), either of which would close it.
		try (OtherNode small = OtherNode.start("ballast.watch.queue-capacity=8", "ballast.watch.stall-timeout=10m",
				"server.tomcat.connection-timeout=10m"); Socket slow = new Socket()) {
			slow.setReceiveBufferSize(4096);
			slow.connect(new InetSocketAddress("127.0.0.1", small.port()), 5000);
			slow.getOutputStream()
				.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: "
						+ Admin.HEADER + "\r\n\r\n")
					.getBytes(StandardCharsets.US_ASCII));
			try (EventStream fast = EventStream.open(small.port(), path, null)) {
				assertThat(fast.nextEvent(SOON).name()).isEqualTo("snapshot");
				long last = 1;
				for (int weight = 1; weight <= 200; weight++) {
					long written = System.nanoTime();
					api.patch(a, "{\"weight\":%d,\"metadata\":%s}".formatted(weight, bulky));
					Event event = fast.nextEvent(SOON);
					assertThat(Duration.ofNanos(System.nanoTime() - written)).isLessThan(Duration.ofSeconds(2));
					assertThat(event.name()).as("event %d", weight).isEqualTo("upsert");
					assertThat(event.json().get("weight").asInt()).isEqualTo(weight);
					last = Long.parseLong(event.id());
				}
				// Now the slow watcher reads: it ends at the same state, through a
				// snapshot that replaced the backlog it could not take.
				slow.setSoTimeout(10_000);
				List<String> events = typesUntil(slow, Long.toString(last));
				assertThat(events).contains("snapshot");
				assertThat(events.stream().filter("snapshot"::equals).count())
					.as("the first snapshot and at least one that replaced the backlog")
					.isGreaterThanOrEqualTo(2);
			}
		}
	}

	@Test
	void dropsSubscribersNotSeenForTheirTtl() {
		Api api = Api.on(port);
		String service = Names.service("ttl");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		api.get("/v1/services/%s/instances?subscriber=gone-1".formatted(service));
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> jdbc.sql("SELECT count(*) FROM subscriber WHERE service = ?")
				.param(service)
				.query(Long.class)
				.single() == 1L);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> jdbc.sql("SELECT count(*) FROM subscriber WHERE service = ?")
				.param(service)
				.query(Long.class)
				.single() == 0L);
		assertThat(Api.on(other.port()).get("/v1/services/%s/subscribers".formatted(service)).json().get("subscribers"))
			.isEmpty();
	}

	private static String bulkyMetadata() {
		StringBuilder metadata = new StringBuilder("{");
		for (int i = 0; i < 60; i++) {
			metadata.append(i == 0 ? "" : ",")
				.append("\"k")
				.append(i)
				.append("\":\"")
				.append("x".repeat(500))
				.append('"');
		}
		return metadata.append('}').toString();
	}

	/**
	 * The types of the events a raw HTTP/1.1 connection delivers, read with the client's
	 * parser, up to the event with id {@code id}.
	 */
	private static List<String> typesUntil(Socket socket, String id) throws IOException {
		InputStream in = new BufferedInputStream(socket.getInputStream());
		boolean chunked = false;
		for (String header = line(in); !header.isEmpty(); header = line(in)) {
			chunked |= header.toLowerCase(Locale.ROOT).equals("transfer-encoding: chunked");
		}
		List<String> types = new ArrayList<>();
		AtomicBoolean reached = new AtomicBoolean();
		EventStreamReader reader = new EventStreamReader(new EventStreamReader.Receiver() {

			@Override
			public void event(String eventId, String type, String data) {
				types.add(type);
				reached.compareAndSet(false, eventId.equals(id));
			}

			@Override
			public void comment(String text) {
			}

		});
		while (!reached.get()) {
			byte[] bytes = chunked ? chunk(in) : in.readNBytes(Math.max(1, in.available()));
			if (bytes.length == 0) {
				throw new AssertionError("stream ended before id " + id + "; saw " + types);
			}
			reader.accept(bytes, 0, bytes.length);
		}
		return types;
	}

	/** The next chunk of a chunked body: empty for the last. */
	private static byte[] chunk(InputStream in) throws IOException {
		int size = Integer.parseInt(line(in).split(";", 2)[0].strip(), 16);
		byte[] bytes = in.readNBytes(size);
		line(in);
		return bytes;
	}

	/** One CRLF-ended line of the HTTP framing, without its end. */
	private static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		for (int c = in.read(); c != '\n'; c = in.read()) {
			if (c < 0) {
				throw new EOFException("connection closed mid-line: " + line);
			}
			line.append((char) c);
		}
		return line.toString().strip();
	}

}
