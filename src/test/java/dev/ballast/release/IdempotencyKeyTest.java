package dev.ballast.release;

import java.util.Map;

import dev.ballast.support.Api;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

@RegistryTest
class IdempotencyKeyTest {

	@LocalServerPort
	int port;

	@Test
	void replaysTheFirstAnswerToARepeatedKeyAndRefusesTheKeyForAnotherBody() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "idem", 4, null);
		String path = "/v1/services/%s/instances/i0/maintenance".formatted(service);
		Map<String, String> key = Map.of("Idempotency-Key", "op-42");

		Api.Reply first = api.sendWith("POST", path, "{\"reason\":\"patching\"}", key);
		Api.Reply again = api.sendWith("POST", path, "{\"reason\":\"patching\"}", key);
		assertThat(first.status()).isEqualTo(202);
		assertThat(again.status()).isEqualTo(202);
		assertThat(again.header("Idempotency-Replayed")).hasValue("true");
		assertThat(again.body()).isEqualTo(first.body());

		Api.Reply other = api.sendWith("POST", path, "{\"reason\":\"something else\"}", key);
		assertThat(other.status()).isEqualTo(422);
		assertThat(api.get("/v1/services/%s/instances/i0".formatted(service)).json().get("modeReason").asString())
			.isEqualTo("patching");
		assertThat(api.sendWith("POST", path, "{\"reason\":\"x\"}", Map.of("Idempotency-Key", "has space")).status())
			.isEqualTo(400);
	}

}
