package dev.ballast.database;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.ReplicatedDatabase;
import dev.ballast.support.ReplicatedDatabase.Member;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node on a primary and its synchronous standby, reached by a multi-host URL, while the
 * standby takes over: the node writes to the new primary only, listens there, and its
 * watchers get every change committed across the failover, in order, once each. Each test
 * has a pair of servers of its own, since it breaks them.
 */
class FailoverTest {

	static final Duration FAILOVER = Duration.ofSeconds(45);

	static final Duration SOON = Duration.ofSeconds(20);

	/** Cuts every connection of the nodes to a server. */
	static final String TERMINATE_NODES = """
			SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			 WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()""";

	@TempDir
	Path directory;

	/**
	 * A switchover leaves the old primary running as a standby, first in the URL; then
	 * the new primary is killed and the old one promoted 2 s later. A node that took the
	 * first host that answers wrote to the standby and listened nowhere.
	 */
	@Test
	void writesToTheNewPrimaryAndWatchersMissNothingAcrossASwitchoverAndACrash() throws Exception {
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode writer = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s");
				OtherNode node = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s")) {
			Api api = Api.on(writer.port());
			String service = "failover";
			List<String> written = new ArrayList<>(List.of(register(api, service, 0)));
			try (EventStream stream = EventStream.open(node.port(), "/v1/services/%s/watch".formatted(service), null)) {
				EventStream.Event snapshot = stream.nextEvent(SOON);
				assertThat(snapshot.name()).isEqualTo("snapshot");
				long revision = revision(snapshot);

				Member first = database.member(0);
				Member second = database.member(1);
				database.switchover(first, second);
				// Connections opened while the old primary was down found the new one;
				// any opened later (a pool replacing one, a listener reconnecting) must
				// too, while the old one answers first in the URL.
				second.sql(TERMINATE_NODES);
				for (int i = 1; i <= 5; i++) {
					written.add(register(api, service, i));
				}
				assertThat(second.query("SELECT count(*) FROM instance WHERE service = '%s'".formatted(service)))
					.as("the writes are on the new primary")
					.isEqualTo("6");
				revision = expectInOrder(stream, written.subList(1, 6), revision);

				second.kill();
				Thread.sleep(2000);
				first.promote();
				for (int i = 6; i <= 10; i++) {
					written.add(register(api, service, i));
				}
				expectInOrder(stream, written.subList(6, 11), revision);
			}
		}
	}

	/**
	 * The old primary stays up, cut off from new connections, after its standby was
	 * promoted: the state a failover manager leaves until it demotes the old one. Every
	 * connection of the nodes but the listening ones and the probes is cut and finds the
	 * new primary, so the writes go there; the listening connection stays open on the old
	 * one, where nothing is notified any more, and the probe still reaches the old one,
	 * so no outage is seen. The watcher's node must notice by itself and listen on the
	 * new one.
	 */
	@Test
	void listensOnTheNewPrimaryWhenTheOldOneStaysUpButNoLongerHearsTheWrites() throws Exception {
		// The watcher's node compares its revisions with the database only when its
		// listener connects: its periodic catch-up would otherwise bring the changes
		// within 2 s, and a listener left deaf on the old primary would go unseen.
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode writer = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s");
				OtherNode node = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s",
						"ballast.watch.catch-up-interval=1h")) {
			Api api = Api.on(writer.port());
			String service = "isolated";
			register(api, service, 0);
			try (EventStream stream = EventStream.open(node.port(), "/v1/services/%s/watch".formatted(service), null)) {
				EventStream.Event snapshot = stream.nextEvent(SOON);
				assertThat(snapshot.name()).isEqualTo("snapshot");

				Member old = database.member(0);
				database.member(1).promote();
				// In one session: once the role may no longer log in, no new one is let
				// in. It has no synchronous standby any more: this session's commit must
				// not wait for one.
				old.sql("SET synchronous_commit = local", "ALTER ROLE postgres NOLOGIN",
						TERMINATE_NODES + " AND query NOT LIKE 'LISTEN %' AND query <> 'SELECT 1'"
						// The probe stays too: the node sees no outage, so no
						// catch-up of an outage's end hides a deaf listener.
								+ " AND application_name <> 'ballast-probe'");
				List<String> written = new ArrayList<>();
				for (int i = 1; i <= 3; i++) {
					written.add(register(api, service, i));
				}
				assertThat(database.member(1)
					.query("SELECT count(*) FROM instance WHERE service = '%s'".formatted(service)))
					.as("the writes are on the new primary")
					.isEqualTo("4");
				expectInOrder(stream, written, revision(snapshot));
			}
		}
	}

	/**
	 * An asynchronous standby that lacks the primary's last commits is promoted: it hands
	 * out the lost changes' revisions again, for other changes. Watchers on both nodes,
	 * the writer's (which applied its own commits at once) and the other, must be told: a
	 * snapshot of the new history, never its changes as if they followed the lost ones;
	 * no event id stands for two different changes; and a client resuming from a lost
	 * position gets a snapshot too.
	 */
	@Test
	void watchersOfChangesAFailoverLostGetASnapshotAndNoEventIdStandsForTwoChanges() throws Exception {
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode writer = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s");
				OtherNode node = OtherNode.startOn(database.server(), "ballast.watch.keepalive=1s")) {
			Api api = Api.on(writer.port());
			String service = "lossy";
			register(api, service, 0);
			String path = "/v1/services/%s/watch".formatted(service);
			try (EventStream onWriter = EventStream.open(writer.port(), path, null);
					EventStream onNode = EventStream.open(node.port(), path, null)) {
				Member primary = database.member(0);
				Member standby = database.member(1);
				Map<String, String> seen = new HashMap<>();
				for (EventStream stream : List.of(onWriter, onNode)) {
					EventStream.Event snapshot = stream.nextEvent(SOON);
					assertThat(snapshot.name()).isEqualTo("snapshot");
					assertThat(snapshot.id()).as("the first history's ids are plain revisions").isEqualTo("1");
				}
				// Replication turns asynchronous, then stops: the standby keeps i0 only.
				primary.sql("ALTER SYSTEM SET synchronous_standby_names = ''", "SELECT pg_reload_conf()");
				standby.sql("ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()");
				List<String> lost = List.of(register(api, service, 1), register(api, service, 2),
						register(api, service, 3));
				for (EventStream stream : List.of(onWriter, onNode)) {
					expectInOrder(stream, lost, 1, seen);
				}
				String lostPosition = "4";

				primary.kill();
				standby.promote();
				List<String> kept = new ArrayList<>(List.of("i0"));
				for (int i = 4; i <= 8; i++) {
					kept.add(register(api, service, i));
				}
				assertThat(standby.query("SELECT count(*) FROM instance WHERE service = '%s'".formatted(service)))
					.as("i1 to i3 were lost")
					.isEqualTo("6");
				for (EventStream stream : List.of(onWriter, onNode)) {
					Map<String, JsonNode> state = afterFailover(stream, seen, kept);
					assertThat(state.keySet()).containsExactlyInAnyOrderElementsOf(kept);
				}
				for (OtherNode either : List.of(writer, node)) {
					try (EventStream resumed = EventStream.open(either.port(), path, lostPosition)) {
						EventStream.Event first = resumed.nextEvent(SOON);
						assertThat(first.name()).as("resuming from a lost position").isEqualTo("snapshot");
						assertThat(first.json().get("instances").valueStream().map(i -> i.get("id").stringValue()))
							.containsExactlyInAnyOrderElementsOf(kept);
						assertThat(first.id()).as("an id of the new history").matches("6@[0-9a-f]{8}");
					}
				}
			}
		}
	}

	/**
	 * A job that one node at a time runs (the lease sweep) takes its lock on the new
	 * primary after a failover: while a session there holds it, no node expires the
	 * leases that ran out, however often they sweep; once it is let go, one does.
	 */
	@Test
	void aSingletonJobTakesItsLockOnTheNewPrimary() throws Exception {
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode first = OtherNode.startOn(database.server(), "ballast.lease.sweep-interval=500ms");
				OtherNode second = OtherNode.startOn(database.server(), "ballast.lease.sweep-interval=500ms")) {
			Api api = Api.on(first.port());
			String service = "swept";
			register(api, service, 0);
			database.member(0).kill();
			Thread.sleep(2000);
			Member promoted = database.member(1);
			promoted.promote();
			register(api, service, 1);
			List<String> lapsing = new ArrayList<>();
			// The lease sweep's key, which never changes (see AdvisoryLock).
			try (AutoCloseable held = promoted.holding("SELECT pg_advisory_xact_lock(x'62616c6c61737401'::bigint)")) {
				for (int i = 2; i <= 4; i++) {
					String id = "lapsing" + i;
					assertThat(api
						.put("/v1/services/%s/instances/%s".formatted(service, id),
								Registration.at("10.0.0.2", 2000 + i).leaseTtlSeconds(5))
						.status()).isEqualTo(201);
					lapsing.add(id);
				}
				// Five times the lease, ten sweeps a second on the two nodes.
				Thread.sleep(12_000);
				for (OtherNode node : List.of(first, second)) {
					for (String id : lapsing) {
						assertThat(Api.on(node.port())
							.get("/v1/services/%s/instances/%s".formatted(service, id))
							.json()
							.get("health")
							.stringValue()).as("%s while the sweep's lock is held on the new primary", id)
							.isEqualTo("PASSING");
					}
				}
			}
			for (String id : lapsing) {
				Awaitility.await()
					.atMost(SOON)
					.untilAsserted(() -> assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id))
						.json()
						.get("health")
						.stringValue()).as("%s once the lock is free", id).isEqualTo("CRITICAL"));
			}
		}
	}

	/**
	 * Reads a stream across a lossy failover until it holds exactly {@code expected}:
	 * each event's id must name one change only (recorded in {@code seen}, shared by the
	 * streams of both nodes), and the first event after the lost changes must be a
	 * snapshot. Returns the instances it holds, by id.
	 */
	private static Map<String, JsonNode> afterFailover(EventStream stream, Map<String, String> seen,
			List<String> expected) {
		Map<String, JsonNode> state = new HashMap<>();
		boolean snapshotSeen = false;
		long deadline = System.nanoTime() + FAILOVER.toNanos();
		while (!(snapshotSeen && state.keySet().containsAll(expected) && expected.containsAll(state.keySet()))) {
			EventStream.Event event = stream.nextEvent(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
			if (event.name().equals("stale")) {
				continue;
			}
			if (!event.name().equals("snapshot")) {
				// A snapshot's id is the position of the state it sends: that of the
				// change there, which it includes.
				String before = seen.putIfAbsent(event.id(), event.data());
				assertThat(before == null || before.equals(event.data()))
					.as("event id %s stood for %s and now for %s", event.id(), before, event.data())
					.isTrue();
			}
			switch (event.name()) {
				case "snapshot" -> {
					snapshotSeen = true;
					state.clear();
					event.json()
						.get("instances")
						.forEach(instance -> state.put(instance.get("id").stringValue(), instance));
				}
				case "upsert" -> {
					assertThat(snapshotSeen).as("an upsert %s before the snapshot of the new history", event.id())
						.isTrue();
					state.put(event.json().get("id").stringValue(), event.json());
				}
				default -> throw new AssertionError("unexpected event " + event);
			}
		}
		return state;
	}

	/** The revision an event id names: the id without its history, if it has one. */
	private static long revision(EventStream.Event event) {
		int at = event.id().indexOf('@');
		return Long.parseLong(at < 0 ? event.id() : event.id().substring(0, at));
	}

	/** Registers an instance, retrying through the failover; its id. */
	private static String register(Api api, String service, int i) throws InterruptedException {
		String id = "i" + i;
		long deadline = System.nanoTime() + FAILOVER.toNanos();
		int status;
		do {
			status = api
				.put("/v1/services/%s/instances/%s".formatted(service, id), Registration.at("10.0.0.1", 1000 + i))
				.status();
			if (status / 100 == 2) {
				return id;
			}
			Thread.sleep(200);
		}
		while (System.nanoTime() < deadline);
		throw new AssertionError(
				"registering %s did not succeed within %s; last status %d".formatted(id, FAILOVER, status));
	}

	/**
	 * The next events are upserts of exactly these instances, in this order, each at the
	 * revision after the one before; the last revision. The stream may say meanwhile that
	 * it is stale, and live again: that is what it owes its watcher during the outage.
	 */
	private static long expectInOrder(EventStream stream, List<String> ids, long after) {
		return expectInOrder(stream, ids, after, new HashMap<>());
	}

	/** As above, recording each event's data by its id in {@code seen}. */
	private static long expectInOrder(EventStream stream, List<String> ids, long after, Map<String, String> seen) {
		long revision = after;
		for (String id : ids) {
			EventStream.Event event = stream.nextEvent(SOON);
			while (event.name().equals("stale")) {
				event = stream.nextEvent(SOON);
			}
			assertThat(event.name()).as("after revision %d", revision).isEqualTo("upsert");
			assertThat(event.json().get("id").stringValue()).isEqualTo(id);
			assertThat(revision(event)).as("the revision after %d", revision).isEqualTo(revision + 1);
			seen.put(event.id(), event.data());
			revision++;
		}
		return revision;
	}

}
