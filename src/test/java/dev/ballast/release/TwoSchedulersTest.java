package dev.ballast.release;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.OtherNode;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** Two nodes run the mode scheduler on one database; each step is applied once. */
@RegistryTest
class TwoSchedulersTest {

	@LocalServerPort
	int port;

	@Test
	void twoNodesNeverBothApplyAStep() {
		try (OtherNode other = OtherNode.start("ballast.release.tick-interval=50ms")) {
			Api api = Api.on(port);
			String service = ReleaseModesTest.service(api, "double", 4, null);
			try (EventStream stream = EventStream.open(other.port(), "/v1/services/%s/watch".formatted(service),
					null)) {
				long revision = Long.parseLong(stream.nextEvent(Duration.ofSeconds(5)).id());
				ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":4}");
				List<String> steps = new ArrayList<>();
				String mode = "";
				while (!mode.equals("DRAINED")) {
					Event event = stream.nextEvent(Duration.ofSeconds(15));
					assertThat(Long.parseLong(event.id())).isEqualTo(++revision);
					JsonNode instance = event.json();
					mode = instance.get("mode").asString();
					steps.add(mode + " " + instance.get("effectiveWeight").asInt());
				}
				assertThat(steps).containsExactly("DRAINING 100", "DRAINING 75", "DRAINING 50", "DRAINING 25",
						"DRAINING 0", "DRAINED 0");
			}
		}
	}

}
