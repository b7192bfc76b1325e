package dev.ballast.release;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** Traffic shifts, and weight edits that end by themselves. */
@RegistryTest
class ReleasesTest {

	static final String BLUE_GREEN = "{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"green\"},\"steps\":%s%s}";

	@LocalServerPort
	int port;

	@Test
	void shiftsTenThenFiftyPercentAndAbortRestoresEveryWeightExactly() {
		Api api = Api.on(port);
		String service = blueGreen(api, 100, 100);
		Map<String, Integer> before = weights(api, service);

		Api.Reply started = api.send("POST", "/v1/services/%s/releases".formatted(service),
				BLUE_GREEN.formatted("[10,50,100]", ""), null);
		assertThat(started.status()).isEqualTo(201);
		assertThat(started.json().get("state").asString()).isEqualTo("ACTIVE");
		assertThat(started.json().get("percent").asInt()).isEqualTo(10);
		assertThat(started.json().get("totalWeight").asLong()).isEqualTo(800);
		// 10% of 800 is 80 for green (40 each); blue keeps 720 in proportion 1:2:3.
		assertThat(weights(api, service))
			.containsExactlyInAnyOrderEntriesOf(Map.of("b1", 120, "b2", 240, "b3", 360, "g1", 40, "g2", 40));
		String release = "/v1/services/%s/releases/%d".formatted(service, started.json().get("id").asLong());

		Api.Reply advanced = api.send("POST", release + "/advance", null, null);
		assertThat(advanced.status()).isEqualTo(200);
		assertThat(advanced.json().get("percent").asInt()).isEqualTo(50);
		// 400 for blue in proportion 1:2:3 is 66.7/133.3/200: the spare unit goes to the
		// largest remainder.
		assertThat(weights(api, service))
			.containsExactlyInAnyOrderEntriesOf(Map.of("b1", 67, "b2", 133, "b3", 200, "g1", 200, "g2", 200));

		Api.Reply aborted = api.send("POST", release + "/abort", null, null);
		assertThat(aborted.status()).isEqualTo(200);
		assertThat(aborted.json().get("state").asString()).isEqualTo("ABORTED");
		assertThat(weights(api, service)).isEqualTo(before);
		assertThat(api.send("POST", release + "/advance", null, null).status()).isEqualTo(409);
	}

	@Test
	void goesTo100PercentOnlyWhenTheNewGroupCanCarryIt() {
		Api api = Api.on(port);
		String small = blueGreen(api, 100, 100);
		JsonNode release = api
			.send("POST", "/v1/services/%s/releases".formatted(small), BLUE_GREEN.formatted("[50,100]", ""), null)
			.json();
		Api.Reply refused = api.send("POST",
				"/v1/services/%s/releases/%d/promote".formatted(small, release.get("id").asLong()), null, null);
		assertThat(refused.status()).isEqualTo(409);
		JsonNode guard = refused.json().get("guard");
		assertThat(guard.get("scope").asString()).isEqualTo("release " + release.get("id").asLong());
		assertThat(guard.get("nominalWeight").asLong()).as("the blue group's weight, the load moved").isEqualTo(600);
		assertThat(guard.get("resultingWeight").asLong()).as("what 200 of green cannot carry").isEqualTo(400);
		assertThat(guard.get("limitPercent").asInt()).isEqualTo(25);
		assertThat(refused.json().get("detail").asString()).contains("66.7%", "25%", "?force=true");
		Api.Reply forced = api.send("POST",
				"/v1/services/%s/releases/%d/promote?force=true".formatted(small, release.get("id").asLong()), null,
				null);
		assertThat(forced.status()).isEqualTo(200);
		assertThat(forced.json().get("state").asString()).isEqualTo("COMPLETED");
		JsonNode audited = api.get("/v1/audit?service=%s&limit=1".formatted(small)).json().get("events").get(0);
		assertThat(audited.get("action").asString()).isEqualTo("release.promote");
		assertThat(audited.get("forced").asBoolean()).isTrue();
		assertThat(audited.get("details").get("guardOverridden").asBoolean()).isTrue();

		String big = blueGreen(api, 300, 300);
		JsonNode bigRelease = api
			.send("POST", "/v1/services/%s/releases".formatted(big), BLUE_GREEN.formatted("[50,100]", ""), null)
			.json();
		Api.Reply promoted = api.send("POST",
				"/v1/services/%s/releases/%d/promote".formatted(big, bigRelease.get("id").asLong()), null, null);
		assertThat(promoted.status()).isEqualTo(200);
		assertThat(promoted.json().get("state").asString()).isEqualTo("COMPLETED");
		assertThat(weights(api, big))
			.containsExactlyInAnyOrderEntriesOf(Map.of("b1", 0, "b2", 0, "b3", 0, "g1", 600, "g2", 600));
	}

	@Test
	void advancesByItselfAndAllowsOneReleaseAtATime() {
		Api api = Api.on(port);
		String service = blueGreen(api, 300, 300);
		JsonNode release = api
			.send("POST", "/v1/services/%s/releases".formatted(service),
					BLUE_GREEN.formatted("[25,100]", ",\"stepIntervalSeconds\":1"), null)
			.json();
		assertThat(api
			.send("POST", "/v1/services/%s/releases".formatted(service), BLUE_GREEN.formatted("[50,100]", ""), null)
			.status()).isEqualTo(409);
		String path = "/v1/services/%s/releases/%d".formatted(service, release.get("id").asLong());
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> api.get(path).json().get("state").asString().equals("COMPLETED"));
		assertThat(weights(api, service).get("b1")).isZero();
	}

	@Test
	void pausesWhenTheNewGroupLosesItsCapacity() {
		Api api = Api.on(port);
		String service = blueGreen(api, 100, 100);
		api.patch("/v1/services/" + service, "{\"maxUnroutablePercent\":100}");
		JsonNode release = api
			.send("POST", "/v1/services/%s/releases".formatted(service), BLUE_GREEN.formatted("[10,50,100]", ""), null)
			.json();
		for (String green : new String[] { "g1", "g2" }) {
			api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, green),
					"{\"reason\":\"broken build\"}", null);
		}
		JsonNode paused = api
			.send("POST", "/v1/services/%s/releases/%d/advance".formatted(service, release.get("id").asLong()), null,
					null)
			.json();
		assertThat(paused.get("state").asString()).isEqualTo("PAUSED");
		assertThat(paused.get("percent").asInt()).isEqualTo(10);
		assertThat(paused.get("stateReason").asString()).contains("g1", "g2");
	}

	@Test
	void refusesBadReleases() {
		Api api = Api.on(port);
		String service = blueGreen(api, 100, 100);
		String path = "/v1/services/%s/releases".formatted(service);
		assertThat(pointer(api.send("POST", path, BLUE_GREEN.formatted("[50,10,100]", ""), null)))
			.isEqualTo("/steps/1");
		assertThat(pointer(api.send("POST", path, BLUE_GREEN.formatted("[10,50]", ""), null))).isEqualTo("/steps");
		assertThat(pointer(api.send("POST", path, BLUE_GREEN.formatted("[\"10\",100]", ""), null)))
			.startsWith("/steps");
		assertThat(pointer(api.send("POST", path, "{\"from\":{\"color\":\"blue\"},\"to\":{},\"steps\":[100]}", null)))
			.isEqualTo("/to");
		assertThat(pointer(api.send("POST", path,
				"{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"blue\"},\"steps\":[100]}", null)))
			.isEqualTo("/to");
		assertThat(api
			.send("POST", path, "{\"from\":{\"color\":\"blue\"},\"to\":{\"color\":\"red\"},\"steps\":[100]}", null)
			.status()).isEqualTo(409);
		assertThat(api.get(path + "/abc").status()).isEqualTo(404);
	}

	@Test
	void aWeightEditWithUntilRevertsByItself() {
		Api api = Api.on(port);
		String service = Names.service("until");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80).weight(100));
		String until = Instant.now().plusSeconds(2).toString();
		Api.Reply edited = api.patch(a, "{\"weight\":10,\"until\":\"%s\"}".formatted(until));
		assertThat(edited.status()).isEqualTo(200);
		assertThat(edited.json().get("weight").asInt()).isEqualTo(10);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> api.get(a).json().get("weight").asInt() == 100);
		assertThat(pointer(api.patch(a, "{\"zone\":\"z\",\"until\":\"%s\"}".formatted(until)))).isEqualTo("/until");
		assertThat(pointer(api.patch(a, "{\"weight\":5,\"until\":\"2000-01-01T00:00:00Z\"}"))).isEqualTo("/until");
		assertThat(api.get(a).json().get("weight").asInt()).isEqualTo(100);
	}

	/** Blue 100/200/300, green two instances of the given weights. */
	private static String blueGreen(Api api, int green1, int green2) {
		String service = Names.service("release");
		api.patch("/v1/services/" + service, "{}");
		int[] blue = { 100, 200, 300 };
		for (int i = 0; i < 3; i++) {
			api.put("/v1/services/%s/instances/b%d".formatted(service, i + 1),
					Registration.at("h", 80).weight(blue[i]).metadata("color", "blue"));
		}
		api.put("/v1/services/%s/instances/g1".formatted(service),
				Registration.at("h", 81).weight(green1).metadata("color", "green"));
		api.put("/v1/services/%s/instances/g2".formatted(service),
				Registration.at("h", 81).weight(green2).metadata("color", "green"));
		return service;
	}

	private static Map<String, Integer> weights(Api api, String service) {
		Map<String, Integer> weights = new TreeMap<>();
		api.get("/v1/services/%s/instances".formatted(service))
			.json()
			.get("instances")
			.forEach(i -> weights.put(i.get("id").asString(), i.get("weight").asInt()));
		return weights;
	}

	private static String pointer(Api.Reply reply) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(422);
		return reply.json().get("errors").get(0).get("pointer").asString();
	}

}
