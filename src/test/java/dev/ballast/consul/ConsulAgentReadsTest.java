package dev.ballast.consul;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ballast.support.Admin;
import dev.ballast.support.Consul;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consul's agent reads with Ballast as the one agent: every routable instance as an agent
 * service, every instance's checks, one service by id; and Consul's paths Ballast does
 * not serve, answered 404 "not served" whatever token comes with them. The npm client
 * reads the same three through its own code in examples/consul-npm.
 */
@RegistryTest
class ConsulAgentReadsTest extends ConsulFixture {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	ConsulAgentReadsTest() {
		super("agentreads");
	}

	@Test
	void listsEveryRoutableInstanceAsAnAgentServiceAndEveryInstancesChecks() {
		register("a", "30s",
				",\"Tags\":[\"v2\"],\"Meta\":{\"version\":\"2\"},\"Weights\":{\"Passing\":40,\"Warning\":1}");
		register("b", "30s", ",\"Weights\":{\"Passing\":40,\"Warning\":1}");
		assertThat(consul.put("/v1/agent/service/maintenance/%s?enable=true&reason=disk".formatted(id("b"))).status())
			.isEqualTo(200);

		JsonNode services = consul.get("/v1/agent/services").json();
		JsonNode a = services.get(id("a"));
		assertThat(a.get("ID").stringValue()).isEqualTo(id("a"));
		assertThat(a.get("Service").stringValue()).isEqualTo(service);
		assertThat(a.get("Address").stringValue()).isEqualTo("10.0.0.1");
		assertThat(a.get("Port").intValue()).isEqualTo(8080);
		assertThat(a.get("Tags").get(0).stringValue()).isEqualTo("v2");
		assertThat(a.get("Meta").get("version").stringValue()).isEqualTo("2");
		assertThat(a.get("Meta").get("weight").stringValue()).isEqualTo("40");
		assertThat(a.get("Weights").get("Passing").intValue()).isEqualTo(40);
		assertThat(a.get("Datacenter").stringValue()).isEqualTo("dc1");
		assertThat(services.has(id("b"))).as("in maintenance, at weight 0: no Consul answer lists it").isFalse();

		JsonNode checks = consul.get("/v1/agent/checks").json();
		JsonNode checkA = checks.get("service:" + id("a"));
		assertThat(checkA.get("Status").stringValue()).isEqualTo("passing");
		assertThat(checkA.get("ServiceName").stringValue()).isEqualTo(service);
		assertThat(checkA.get("Type").stringValue()).isEqualTo("ttl");
		JsonNode checkB = checks.get("service:" + id("b"));
		assertThat(checkB.get("Output").stringValue()).contains("mode MAINTENANCE", "not routable");

		JsonNode one = consul.get("/v1/agent/service/" + id("a")).json();
		assertThat(one).isEqualTo(a);
		Consul.Answer out = consul.get("/v1/agent/service/" + id("b"));
		assertThat(out.status()).isEqualTo(404);
		assertThat(out.body()).contains("out of rotation", "/v1/agent/checks");
		Consul.Answer unknown = consul.get("/v1/agent/service/nobody." + service);
		assertThat(unknown.status()).isEqualTo(404);
		assertThat(unknown.body()).startsWith("unknown service ID: nobody." + service);
	}

	@Test
	void aFailingCheckShowsItsCauseAndAnIdTwoServicesHoldIsKeyedByService() {
		for (String name : List.of("a", "b", "c", "d", "e")) {
			register(name, "30s", "");
		}
		assertThat(consul.put("/v1/agent/check/fail/service:" + id("a")).status()).isEqualTo(200);
		JsonNode failing = consul.get("/v1/agent/checks").json().get("service:" + id("a"));
		assertThat(failing.get("Status").stringValue()).isEqualTo("critical");
		assertThat(failing.get("Output").stringValue()).contains("it reported itself critical");
		assertThat(consul.get("/v1/agent/services").json().has(id("a"))).as("ejected").isFalse();

		// Ballast's own API lets two services hold one id; Consul's map keys cannot.
		String other = service + "-other";
		api.put("/v1/services/%s/instances/shared".formatted(service), Registration.at("10.0.0.2", 80).weight(10));
		api.put("/v1/services/%s/instances/shared".formatted(other), Registration.at("10.0.0.3", 80).weight(20));
		JsonNode services = consul.get("/v1/agent/services").json();
		assertThat(services.get(service + "/shared").get("Address").stringValue()).isEqualTo("10.0.0.2");
		assertThat(services.get(other + "/shared").get("Address").stringValue()).isEqualTo("10.0.0.3");
		assertThat(services.has("shared")).isFalse();
		assertThat(consul.get("/v1/agent/checks").json().has(service + "/service:shared")).isTrue();
		assertThat(consul.get("/v1/agent/service/shared").status()).isEqualTo(409);
	}

	@Test
	void refusesWhatItCannotHonourAndAsksForAReader() {
		assertThat(consul.get("/v1/agent/services?filter=Service%3D%3Dweb").status()).isEqualTo(400);
		assertThat(consul.get("/v1/agent/checks?dc=elsewhere").status()).isEqualTo(400);
		assertThat(consul.as(null).get("/v1/agent/services").status()).isEqualTo(401);
		assertThat(consul.get("/v1/agent/service/bad%20id").status()).isEqualTo(400);
	}

	@Test
	void aConsulPathItDoesNotServeIsNotServedWhateverTokenComes() {
		Map<String, Map<String, String>> tokens = Map.of("none", Map.of(), "Consul's header",
				Map.of("X-Consul-Token", Admin.TOKEN), "an unknown Consul token",
				Map.of("X-Consul-Token", "00000000-0000-0000-0000-000000000000"), "an unknown bearer token",
				Map.of("Authorization", "Bearer blst_no-such-token"));
		for (String path : List.of("/v1/agent/members", "/v1/agent/join/10.0.0.1", "/v1/agent/force-leave/n1",
				"/v1/catalog/node/ballast", "/v1/catalog/nodes", "/v1/health/state/critical", "/v1/session/list",
				"/v1/acl/token/self", "/v1/agent/check/register", "/v1/coordinate/nodes",
				"/v1/agent/check/update/service:x", "/v1/agent/check/deregister/service:x")) {
			String method = path.contains("join") || path.contains("force-leave") || path.contains("/check/") ? "PUT"
					: "GET";
			tokens.forEach((which, headers) -> {
				HttpResponse<String> answer = api.as(null).raw(method, path, null, headers, Duration.ofSeconds(10));
				assertThat(answer.statusCode()).as("%s %s with %s: %s", method, path, which, answer.body())
					.isEqualTo(404);
				JsonNode problem = JSON.readTree(answer.body());
				assertThat(problem.get("title").stringValue()).isEqualTo("Not served");
				assertThat(problem.get("detail").stringValue()).contains(method + " " + path, "docs/consul.md");
			});
		}
	}

}
