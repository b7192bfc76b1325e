package dev.ballast.database;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.ballast.support.Api;
import dev.ballast.support.OtherNode;
import dev.ballast.support.Registration;
import dev.ballast.support.ReplicatedDatabase;
import dev.ballast.support.ReplicatedDatabase.Member;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write whose commit waits for a synchronous standby that has stopped acknowledging is
 * not acknowledged: neither when its wait is cancelled (PostgreSQL then reports success,
 * for a commit only the primary has) nor when the connection gives up on it (it may have
 * committed). Both are answered 503 with an unknown outcome, never 2xx, and never as
 * "nothing was written".
 */
class UnconfirmedCommitTest {

	static final Duration SOON = Duration.ofSeconds(30);

	static final String OUTCOME_UNKNOWN = "https://ballast.dev/problems/outcome-unknown";

	@TempDir
	Path directory;

	@Test
	void aCommitWhoseWaitForTheStandbyIsCancelledIsNotAcknowledged() throws Exception {
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode node = OtherNode.startOn(database.server())) {
			Api api = Api.on(node.port());
			assertThat(api.put("/v1/services/sync/instances/a", Registration.at("10.0.0.1", 1000)).status())
				.isEqualTo(201);
			Member primary = database.member(0);
			stopTheStandby(database);

			// A registration (through the group commit) and an operator's edit.
			for (String door : new String[] { "PUT", "PATCH" }) {
				CompletableFuture<Api.Reply> write = CompletableFuture.supplyAsync(() -> door.equals("PUT")
						? api.put("/v1/services/sync/instances/b", Registration.at("10.0.0.2", 1000))
						: api.patch("/v1/services/sync/instances/a", "{\"weight\":50}"));
				// Until the write is answered: another commit (the node's own, such as
				// its
				// probing beat) may be the one waiting when the first cancel comes, and
				// the
				// write's wait would then never be cancelled.
				Awaitility.await().atMost(SOON).pollInterval(Duration.ofMillis(100)).until(() -> {
					primary.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
					return write.isDone();
				});
				Api.Reply reply = write.get(SOON.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
				assertThat(reply.status()).as("%s after its wait for the standby was cancelled: %s", door, reply.body())
					.isEqualTo(503);
				assertThat(reply.json().get("type").stringValue()).isEqualTo(OUTCOME_UNKNOWN);
				assertThat(reply.header("Retry-After")).isPresent();
			}
			assertThat(primary.query("SELECT weight FROM instance WHERE service = 'sync' AND id = 'a'"))
				.as("committed on the primary all the same")
				.isEqualTo("50");
		}
	}

	/**
	 * Each write is to a service of its own: the first's transaction still holds its
	 * service's lock on the server while its COMMIT waits there, after the node gave up.
	 */
	@Test
	void aCommitTheConnectionGaveUpOnIsAnUnknownOutcome() throws Exception {
		try (ReplicatedDatabase database = ReplicatedDatabase.startIn(directory);
				OtherNode node = OtherNode.startOn(database.server())) {
			Api api = Api.on(node.port());
			assertThat(api.put("/v1/services/edited/instances/a", Registration.at("10.0.0.1", 1000)).status())
				.isEqualTo(201);
			stopTheStandby(database);
			for (String door : new String[] { "PUT", "PATCH" }) {
				long began = System.nanoTime();
				Api.Reply reply = door.equals("PUT")
						? api.put("/v1/services/registered/instances/b", Registration.at("10.0.0.2", 1000))
						: api.patch("/v1/services/edited/instances/a", "{\"weight\":50}");
				Duration took = Duration.ofNanos(System.nanoTime() - began);
				assertThat(reply.status()).as("%s while no standby acknowledges: %s", door, reply.body())
					.isEqualTo(503);
				assertThat(reply.json().get("type").stringValue()).isEqualTo(OUTCOME_UNKNOWN);
				assertThat(reply.header("Retry-After")).isPresent();
				assertThat(took).as("bounded by the socket timeout (6 s), not by the standby").isLessThan(SOON);
			}
		}
	}

	/**
	 * The standby stops streaming, and the primary has seen it go: a commit before that
	 * would still be acknowledged by it.
	 */
	private static void stopTheStandby(ReplicatedDatabase database) {
		database.member(1).sql("ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()");
		Awaitility.await()
			.atMost(SOON)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> database.member(0).query("SELECT count(*) FROM pg_stat_replication").equals("0"));
	}

}
