package dev.ballast.release;

import java.nio.file.Path;
import java.time.Duration;

import dev.ballast.support.Api;
import dev.ballast.support.Node;
import dev.ballast.support.Registration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain lives in the database: a node killed in the middle of it, restarted, finishes
 * it.
 */
class DrainRestartIT {

	@TempDir
	Path dataDir;

	@Test
	void aDrainStartedBeforeARestartContinuesAfterIt() throws Exception {
		Path log = Path.of("target", "drain-restart-it.log");
		String instance = "/v1/services/shop/instances/i0";
		Node first = Node.start(dataDir, log);
		Api api = Api.on(first.port());
		for (int i = 0; i < 4; i++) {
			api.put("/v1/services/shop/instances/i" + i, Registration.at("h", 80).weight(100));
		}
		assertThat(api.send("POST", instance + "/drain", "{\"durationSeconds\":8}", null).status()).isEqualTo(202);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> api.get(instance).json().get("effectiveWeight").asInt() < 100);
		JsonNode beforeKill = api.get(instance).json();
		first.kill();
		// Killed mid-ramp: whatever completes the drain now is the restarted node.
		assertThat(beforeKill.get("mode").asString()).isEqualTo("DRAINING");
		assertThat(beforeKill.get("effectiveWeight").asInt()).isBetween(1, 99);

		try (Node second = Node.start(dataDir, log)) {
			Api after = Api.on(second.port());
			await().atMost(Duration.ofSeconds(30))
				.until(() -> after.get(instance).json().get("mode").asString().equals("DRAINED"));
			assertThat(after.get(instance).json().get("effectiveWeight").asInt()).isZero();
			assertThat(second.stop()).isIn(0, 143);
		}
	}

}
