package dev.ballast.consul;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consul's KV store is not served, and every call to it says so, whatever token it
 * carries: it used to answer a Consul client's {@code X-Consul-Token} with 401 "needs a
 * token", which sent operators looking for a token that would not have helped.
 */
@RegistryTest
class ConsulKeyValueTest {

	@LocalServerPort
	int port;

	@Test
	void everyKeyValueCallIsToldThatBallastServesNoKvStoreWhateverItsToken() {
		Api anonymous = Api.on(port).as(null);
		assertKvRefusal(anonymous.raw("GET", "/v1/kv/config/app/data", null, Map.of("X-Consul-Token", Admin.TOKEN),
				Duration.ofSeconds(10)), "GET /v1/kv/config/app/data");
		assertKvRefusal(anonymous.raw("GET", "/v1/kv/config/app?recurse&token=" + Admin.TOKEN, null, Map.of(),
				Duration.ofSeconds(10)), "GET /v1/kv/config/app");
		assertKvRefusal(anonymous.raw("PUT", "/v1/kv/feature/flag", "on", Map.of(), Duration.ofSeconds(10)),
				"PUT /v1/kv/feature/flag");
		assertKvRefusal(Api.on(port).raw("DELETE", "/v1/kv/feature?recurse", null, Map.of(), Duration.ofSeconds(10)),
				"DELETE /v1/kv/feature");
		assertKvRefusal(anonymous.raw("GET", "/v1/kv/x", null, Map.of("Authorization", "Bearer blst_no-such-token"),
				Duration.ofSeconds(10)), "GET /v1/kv/x");
		assertKvRefusal(anonymous.raw("GET", "/v1/kv", null, Map.of(), Duration.ofSeconds(10)), "GET /v1/kv");
	}

	@Test
	void aPathThatOnlyBeginsLikeKvIsAnsweredAsAnyPathNothingServes() {
		HttpResponse<String> answer = Api.on(port)
			.as(null)
			.raw("GET", "/v1/kvstore", null, Map.of(), Duration.ofSeconds(10));
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
		assertThat(answer.body()).contains("Nothing is served here").doesNotContain("KV");
	}

	private static void assertKvRefusal(HttpResponse<String> answer, String call) {
		assertThat(answer.statusCode()).as(answer.body()).isEqualTo(404);
		assertThat(answer.headers().firstValue("Content-Type"))
			.hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
		JsonNode problem = JsonMapper.builder().build().readTree(answer.body());
		assertThat(problem.get("type").asString()).isEqualTo("https://ballast.dev/problems/not-implemented");
		assertThat(problem.get("status").asInt()).isEqualTo(404);
		assertThat(problem.get("title").asString()).isEqualTo("Ballast serves no KV store");
		assertThat(problem.get("detail").asString()).contains(call, "serves no KV store");
	}

}
