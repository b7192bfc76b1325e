package dev.ballast;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Node;
import dev.ballast.support.Registration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The packaged jar started on the bean definitions generated at build time
 * ({@code -Dspring.aot.enabled=true}, docs/startup.md): the same registry, and a refusal
 * to start on an external database, which those definitions cannot serve.
 */
class AotStartIT {

	private static final List<String> AOT = List.of("-Dspring.aot.enabled=true");

	@TempDir
	Path dataDir;

	@Test
	void servesTheRegistryFromTheGeneratedDefinitions() throws Exception {
		Path log = Path.of("target", "aot-start-it.log");
		Files.deleteIfExists(log);

		try (Node node = Node.start(AOT, dataDir, log)) {
			Api api = Api.on(node.port());
			Api.Reply refused = api.put("/v1/services/demo/instances/a",
					"{\"address\":\"127.0.0.1\",\"port\":9000,\"weight\":\"5\"}");
			Api.Reply created = api.put("/v1/services/demo/instances/a",
					Registration.at("127.0.0.1", 9000).weight(7).leaseTtlSeconds(300));
			EventStream.Event snapshot;
			try (EventStream watch = EventStream.open(node.port(), "/v1/services/demo/watch", null)) {
				snapshot = watch.nextEvent(Duration.ofSeconds(10));
			}

			assertThat(Files.readString(log)).contains("Starting AOT-processed BallastApplication");
			assertThat(refused.status()).isEqualTo(422);
			assertThat(refused.json().get("errors").get(0).get("pointer").asString()).isEqualTo("/weight");
			assertThat(created.status()).isEqualTo(201);
			assertThat(created.json().get("weight").intValue()).isEqualTo(7);
			assertThat(snapshot.name()).isEqualTo("snapshot");
			assertThat(snapshot.json().get("instances").get(0).get("weight").intValue()).isEqualTo(7);
			assertThat(node.stop()).isIn(0, 143);
		}
	}

	@Test
	void refusesToStartOnAnExternalDatabase() throws Exception {
		Path log = Path.of("target", "aot-start-external-it.log");
		Files.deleteIfExists(log);

		assertThatIllegalStateException()
			.isThrownBy(() -> Node.start(AOT, dataDir, log, "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/x"))
			.withMessageContaining("exited");
		assertThat(Files.readString(log)).contains(
				"spring.datasource.url is set, but this node starts on the bean definitions generated at build time")
			.doesNotContain("Starting embedded PostgreSQL");
	}

}
