package dev.ballast.lease;

import java.time.Duration;
import java.time.Instant;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With the real timers and clock, an absorbed heartbeat reaches the database by itself.
 */
@RegistryTest
class ScheduledFlushTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void anAbsorbedHeartbeatIsWrittenWithinAFewFlushIntervals() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("flush");
		String path = "/v1/services/%s/instances/a".formatted(service);
		api.put(path, Registration.at("h", 1));
		Instant registered = lastRenewed(service);
		Thread.sleep(50);

		Api.Reply beat = api.send("POST", path + "/heartbeat", null, null);

		assertThat(beat.status()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(5)).until(() -> lastRenewed(service).isAfter(registered));
		assertThat(Api.unchecked(port).get("/actuator/prometheus").body()).contains("ballast_heartbeats_total");
	}

	private Instant lastRenewed(String service) {
		return jdbc.sql("SELECT last_renewed_at FROM instance WHERE service = ?")
			.param(service)
			.query((rs, row) -> rs.getTimestamp(1).toInstant())
			.single();
	}

}
