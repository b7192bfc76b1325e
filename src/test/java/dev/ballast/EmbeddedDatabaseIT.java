package dev.ballast;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import dev.ballast.support.Api;
import dev.ballast.support.Node;
import dev.ballast.support.Registration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged jar on its embedded PostgreSQL, run as operators run it: data survives a
 * restart, a node killed with SIGKILL does not prevent the next start, and SIGTERM stops
 * the database cleanly.
 */
class EmbeddedDatabaseIT {

	private static final String INSTANCE = "/v1/services/demo/instances/a";

	@TempDir
	Path dataDir;

	@Test
	void keepsRegistrationsAcrossRestartsAndRecoversFromAKilledNode() throws Exception {
		Path log = Path.of("target", "embedded-database-it.log");
		Path pidFile = dataDir.resolve("postgres").resolve("postmaster.pid");

		Node first = Node.start(dataDir, log);
		Api.Reply refused = Api.on(first.port())
			.put(INSTANCE, "{\"address\":\"127.0.0.1\",\"port\":9000,\"weight\":\"0\"}");
		Api.Reply created = Api.on(first.port()).put(INSTANCE, Registration.at("127.0.0.1", 9000).weight(0));
		assertThat(refused.status()).isEqualTo(422);
		assertThat(refused.json().get("errors").get(0).get("pointer").asString()).isEqualTo("/weight");
		assertThat(created.status()).isEqualTo(201);
		assertThat(created.json().get("weight").isInt()).isTrue();

		first.kill();
		Optional<ProcessHandle> orphan = postmaster(pidFile);
		assertThat(orphan).as("the killed node's PostgreSQL is still running").isPresent();

		try (Node second = Node.start(dataDir, log)) {
			Api.Reply survived = Api.on(second.port()).get(INSTANCE);
			assertThat(survived.status()).isEqualTo(200);
			assertThat(survived.json().get("weight").intValue()).isZero();
			// The orphan was re-parented to init, which reaps it in its own time.
			await("the orphaned PostgreSQL stops").atMost(Duration.ofSeconds(30)).until(() -> !orphan.get().isAlive());
			assertThat(postmaster(pidFile).map(ProcessHandle::pid)).isPresent()
				.isNotEqualTo(Optional.of(orphan.get().pid()));

			// A stop asked for with SIGTERM is a clean stop: exit 0 once every hook ran
			// (the JVM's own 143 made ./mvnw spring-boot:run end in BUILD FAILURE).
			assertThat(second.stop()).isZero();
		}
		assertThat(pidFile).as("PostgreSQL stopped cleanly with the node").doesNotExist();
	}

	private static Optional<ProcessHandle> postmaster(Path pidFile) throws Exception {
		if (!Files.exists(pidFile)) {
			return Optional.empty();
		}
		long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
		return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
	}

}
