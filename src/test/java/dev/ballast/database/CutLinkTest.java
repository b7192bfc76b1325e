package dev.ballast.database;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.LinkProxy;
import dev.ballast.support.OtherNode;
import dev.ballast.support.OutageDatabase;
import dev.ballast.support.Registration;
import dev.ballast.support.TestDatabase;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One node cut off from PostgreSQL while its clients still reach it, and another node
 * that still reaches it and writes: the cut node serves reads from memory marked stale,
 * refuses writes with 503 and Retry-After within its bounded waits, absorbs heartbeats
 * without any lease expiring, tells its streams they are stale, and once the link is back
 * delivers every change the other node committed meanwhile, once and in order. The link
 * is cut two ways: a black hole (no reset, only the node's own timeouts end its waits)
 * and a reset. The two nodes have a PostgreSQL of their own, so that no other test's node
 * sweeps their leases.
 */
class CutLinkTest {

	static final Duration SOON = Duration.ofSeconds(15);

	/**
	 * The longest a registration waits for its group's transaction
	 * ({@code ballast.writes.commit-wait}): a group caught by a black hole waits out
	 * pgjdbc's 6 s {@code socketTimeout} (after Hikari's 1 s validation), which a loaded
	 * machine stretches past 8 s; 1 s more for the answer.
	 */
	static final Duration COMMIT_WAIT = Duration.ofSeconds(10);

	/** The heartbeating instance's lease: the cut lasts well beyond it. */
	static final int TTL_SECONDS = 5;

	@TempDir
	static Path directory;

	static OutageDatabase postgres;

	static LinkProxy link;

	static OtherNode writer;

	static OtherNode cut;

	@BeforeAll
	static void startDatabaseLinkAndNodes() throws IOException {
		postgres = OutageDatabase.startIn(directory);
		link = LinkProxy.toDatabase(postgres.jdbcUrl());
		writer = OtherNode.startOn(postgres.server(), "ballast.lease.sweep-interval=1s");
		cut = OtherNode.startOn(new TestDatabase.Server(link.through(postgres.jdbcUrl()), "postgres", ""),
				"ballast.watch.keepalive=1s", "ballast.lease.sweep-interval=1s");
	}

	@AfterEach
	void healTheLink() {
		link.forward();
	}

	@AfterAll
	static void stopEverything() throws IOException {
		try (OutageDatabase database = postgres;
				LinkProxy proxy = link;
				OtherNode first = writer;
				OtherNode second = cut) {
			// Closed in reverse order: the nodes, the link, the database.
		}
	}

	@Test
	void aBlackHoledLinkIsSurvivedAndCaughtUpExactly() throws Exception {
		cutAndHeal("cut-black-hole", link::blackHole);
	}

	@Test
	void aResetLinkIsSurvivedAndCaughtUpExactly() throws Exception {
		cutAndHeal("cut-reset", link::reset);
	}

	private void cutAndHeal(String service, Runnable cutTheLink) throws Exception {
		Api direct = Api.on(writer.port());
		Api viaCut = Api.on(cut.port());
		String instances = "/v1/services/%s/instances".formatted(service);
		assertThat(direct.put(instances + "/beating", Registration.at("10.0.0.1", 1).leaseTtlSeconds(TTL_SECONDS))
			.status()).isEqualTo(201);
		assertThat(direct.put(instances + "/a", Registration.at("10.0.0.2", 2).weight(10)).status()).isEqualTo(201);
		assertThat(direct.put(instances + "/b", Registration.at("10.0.0.3", 3).weight(10)).status()).isEqualTo(201);
		Api.Reply before = viaCut.get(instances);
		assertThat(before.json().get("instances")).hasSize(3);
		assertThat(before.header("X-Ballast-Stale")).isEmpty();
		assertThat(viaCut.send("POST", instances + "/beating/heartbeat", null, null).status()).isEqualTo(200);

		try (EventStream stream = EventStream.open(cut.port(), "/v1/services/%s/watch".formatted(service), null)) {
			EventStream.Event snapshot = stream.nextEvent(SOON);
			assertThat(snapshot.name()).isEqualTo("snapshot");
			long revision = snapshot.json().get("revision").longValue();

			long cutAt = System.nanoTime();
			cutTheLink.run();

			// A write caught by the cut, before the node has noticed: bounded by its
			// network timeouts, never a hang and never a 500.
			assertUnavailable(timed("first write after the cut",
					() -> viaCut.put(instances + "/late", Registration.at("10.0.0.9", 9)), COMMIT_WAIT.plusSeconds(1)));
			EventStream.Event stale = nextNamed(stream, "stale");
			assertThat(stale.json().get("stale").booleanValue()).isTrue();
			assertUnavailable(timed("write once the node knows",
					() -> viaCut.put(instances + "/late", Registration.at("10.0.0.9", 9)), Duration.ofSeconds(3)));
			Api.Reply staleRead = viaCut.get(instances);
			assertThat(staleRead.status()).isEqualTo(200);
			assertThat(staleRead.header("X-Ballast-Stale")).contains("true");
			assertThat(staleRead.json()).isEqualTo(before.json());

			// Meanwhile the other node writes: what the cut node must deliver afterwards.
			List<String> committed = new ArrayList<>();
			for (String id : List.of("c1", "c2", "c3")) {
				assertThat(
						direct.put(instances + "/" + id, Registration.at("10.0.1.1", 100 + committed.size())).status())
					.isEqualTo(201);
				committed.add("upsert " + id);
			}
			assertThat(direct.patch(instances + "/a", "{\"weight\":20}").status()).isEqualTo(200);
			committed.add("upsert a");
			assertThat(direct.delete(instances + "/b").status()).isEqualTo(204);
			committed.add("remove b");

			// The instance keeps beating through the cut node, past twice its lease; the
			// other node, sweeping every second, must not expire it meanwhile, though it
			// never sees those renewals.
			while (Duration.ofNanos(System.nanoTime() - cutAt).compareTo(Duration.ofSeconds(3L * TTL_SECONDS)) < 0) {
				assertThat(viaCut.send("POST", instances + "/beating/heartbeat", null, null).status())
					.as("a heartbeat through the cut node, absorbed")
					.isEqualTo(200);
				assertThat(direct.get(instances + "/beating").json().get("health").stringValue())
					.as("the instance beating through the cut node, as the other node sees it %d ms into the cut",
							Duration.ofNanos(System.nanoTime() - cutAt).toMillis())
					.isEqualTo("PASSING");
				Thread.sleep(500);
			}

			link.forward();
			Thread beater = Thread.ofVirtual().start(() -> beatUntilInterrupted(viaCut, instances + "/beating"));
			try {
				EventStream.Event live = nextNamed(stream, "stale");
				assertThat(live.json().get("stale").booleanValue()).isFalse();
				// The renewals absorbed during the cut are written once the link is back.
				Awaitility.await()
					.atMost(SOON)
					.pollInterval(Duration.ofMillis(200))
					.until(() -> "PASSING"
						.equals(direct.get(instances + "/beating").json().get("health").stringValue()));
				Api.Reply registry = direct.get(instances);
				long last = registry.json().get("revision").longValue();
				Map<String, String> state = stateOf(snapshot.json().get("instances"));
				List<String> delivered = new ArrayList<>();
				while (revision < last) {
					EventStream.Event event = stream.nextEvent(SOON);
					assertThat(event.json().get("revision").longValue()).as("after %s", delivered)
						.isEqualTo(++revision);
					String id = event.json().get("id").stringValue();
					delivered.add(event.name() + " " + id);
					if (event.name().equals("upsert")) {
						state.put(id, fields(event.json()));
					}
					else {
						assertThat(event.name()).isEqualTo("remove");
						state.remove(id);
					}
				}
				assertThat(delivered.stream().filter(committed::contains).toList())
					.as("the other node's writes among what the stream delivered: %s", delivered)
					.isEqualTo(committed);
				assertThat(state).as("the stream's state, against the registry's at revision %d", last)
					.isEqualTo(stateOf(registry.json().get("instances")));
				EventStream.Event extra = stream.eventWithin(Duration.ofSeconds(2));
				assertThat(extra == null ? null : extra.json().get("revision").longValue())
					.as("nothing twice: %s", extra)
					.isIn(null, last + 1);

				Awaitility.await()
					.atMost(SOON)
					.pollInterval(Duration.ofMillis(200))
					.until(() -> viaCut.put(instances + "/late", Registration.at("10.0.0.9", 9)).status() == 201);
				assertThat(direct.get(instances + "/late").status()).isEqualTo(200);
			}
			finally {
				beater.interrupt();
				beater.join(5_000);
			}
		}
	}

	private static void beatUntilInterrupted(Api api, String path) {
		try {
			while (!Thread.currentThread().isInterrupted()) {
				api.send("POST", path + "/heartbeat", null, null);
				Thread.sleep(500);
			}
		}
		catch (InterruptedException ex) {
			// The test is done with it.
		}
	}

	/** Each instance's fields that a stream and a read at the same revision agree on. */
	private static Map<String, String> stateOf(JsonNode instances) {
		Map<String, String> state = new TreeMap<>();
		instances.forEach(instance -> state.put(instance.get("id").stringValue(), fields(instance)));
		return state;
	}

	private static String fields(JsonNode instance) {
		return List.of("revision", "address", "port", "weight", "effectiveWeight", "mode", "health")
			.stream()
			.map(field -> field + "=" + instance.get(field))
			.toList()
			.toString();
	}

	/** The next event of that name; only keepalives may come before it. */
	private static EventStream.Event nextNamed(EventStream stream, String name) {
		EventStream.Event event = stream.nextEvent(SOON);
		assertThat(event.name()).isEqualTo(name);
		return event;
	}

	private static void assertUnavailable(Api.Reply reply) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(503);
		assertThat(reply.header("Retry-After"))
			.hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 3));
		// An outage, or a registration whose group ran into the cut
		// (docs/operations.md, "A write whose outcome is not known").
		assertThat(reply.json().get("type").stringValue()).isIn("https://ballast.dev/problems/database-unavailable",
				"https://ballast.dev/problems/outcome-unknown");
	}

	private static Api.Reply timed(String what, java.util.function.Supplier<Api.Reply> request, Duration bound) {
		long started = System.nanoTime();
		Api.Reply reply = request.get();
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		System.out.printf("%s: %d in %d ms%n", what, reply.status(), took.toMillis());
		assertThat(took).as(what).isLessThan(bound);
		return reply;
	}

}
