package dev.ballast.database;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.ReplicatedDatabase;
import dev.ballast.support.ReplicatedDatabase.Member;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
				long revision = Long.parseLong(snapshot.id());

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
				expectInOrder(stream, written, Long.parseLong(snapshot.id()));
			}
		}
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
		long revision = after;
		for (String id : ids) {
			EventStream.Event event = stream.nextEvent(SOON);
			while (event.name().equals("stale")) {
				event = stream.nextEvent(SOON);
			}
			assertThat(event.name()).as("after revision %d", revision).isEqualTo("upsert");
			assertThat(event.json().get("id").stringValue()).isEqualTo(id);
			assertThat(Long.parseLong(event.id())).as("the revision after %d", revision).isEqualTo(revision + 1);
			revision++;
		}
		return revision;
	}

}
