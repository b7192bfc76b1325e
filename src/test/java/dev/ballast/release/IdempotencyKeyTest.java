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

	@Test
	void aKeyBelongsToItsCallerAndAnswersHoldingSecretsAreNeverKept() {
		Api admin = Api.on(port);
		String service = ReleaseModesTest.service(admin, "idem-caller", 4, null);
		String path = "/v1/services/%s/instances/i0/maintenance".formatted(service);
		Map<String, String> key = Map.of("Idempotency-Key", "shared-key");
		Api operator = admin.as(admin.send("POST", "/v1/tokens", "{\"name\":\"idem\",\"role\":\"operator\"}", null)
			.json()
			.get("token")
			.asString());

		assertThat(admin.sendWith("POST", path, "{\"reason\":\"first\"}", key).status()).isEqualTo(202);
		Api.Reply another = operator.sendWith("POST", path, "{\"reason\":\"second\"}", key);
		assertThat(another.header("Idempotency-Replayed")).as("another caller's key is its own").isEmpty();
		assertThat(another.status()).isEqualTo(202);
		assertThat(admin.get("/v1/services/%s/instances/i0".formatted(service)).json().get("modeReason").asString())
			.isEqualTo("second");

		Map<String, String> tokenKey = Map.of("Idempotency-Key", "token-" + service);
		Api.Reply created = admin.sendWith("POST", "/v1/tokens", "{\"name\":\"once\",\"role\":\"reader\"}", tokenKey);
		Api.Reply repeated = admin.sendWith("POST", "/v1/tokens", "{\"name\":\"once\",\"role\":\"reader\"}", tokenKey);
		assertThat(repeated.header("Idempotency-Replayed")).isEmpty();
		assertThat(repeated.json().get("token").asString()).isNotEqualTo(created.json().get("token").asString());
	}

}
