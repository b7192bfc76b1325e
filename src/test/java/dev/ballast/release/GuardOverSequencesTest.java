package dev.ballast.release;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Consul;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard over sequences of actions, through HTTP against PostgreSQL: the walk-arounds
 * of issue 26 (a weight lowered to 1 before 0, instances moved between zones), through
 * Ballast's API and Consul's, refused at the step that would exceed the budget; small
 * services draining one instance at a time with the default budget; capacity that a
 * deregistration took counting until it comes back; a count budget; and racing callers
 * through every door admitting exactly the budget.
 */
@RegistryTest
class GuardOverSequencesTest {

	@LocalServerPort
	int port;

	@Test
	void aWeightLoweredToOneBeforeZeroCountsWhatItTook() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "lowfirst", 4, null);
		assertThat(weight(api, service, "i1", 1).status()).isEqualTo(200);
		assertThat(weight(api, service, "i1", 0).status()).isEqualTo(200);
		Api.Reply refused = weight(api, service, "i2", 1);
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		JsonNode guard = refused.json().get("guard");
		assertThat(guard.get("nominalWeight").asLong()).as("the base before i1 was lowered").isEqualTo(400);
		assertThat(guard.get("unroutableWeight").asLong()).isEqualTo(100);
		assertThat(guard.get("resultingWeight").asLong()).isEqualTo(199);
		assertThat(guard.get("holders").valueStream().map(JsonNode::asString)).containsExactly("i1");
		assertThat(refused.json().get("detail").asString()).contains("i1 (held at weight 0)", "capacity 99 that left",
				"i1's weight lowered from 100 to 1", "maxUnroutable (now \"25%\")");
		assertThat(weight(api, service, "i2", 0).status()).isEqualTo(409);
		assertThat(api.get("/v1/services/%s/instances/i2".formatted(service)).json().get("weight").asInt())
			.isEqualTo(100);
		JsonNode summary = api.get("/v1/services/" + service).json();
		assertThat(summary.get("nominalWeight").asLong()).isEqualTo(400);
		assertThat(summary.get("unroutableWeight").asLong()).isEqualTo(100);
	}

	@Test
	void aRegistrantLoweringItsConsulWeightsIsHeldToTheSameBudget() {
		Consul consul = Consul.on(port);
		String service = Names.service("consullow");
		for (int i = 0; i < 4; i++) {
			assertThat(consul.put("/v1/agent/service/register", consulBody(service, i, 100)).status()).isEqualTo(200);
		}
		assertThat(consul.put("/v1/agent/service/register", consulBody(service, 1, 1)).status()).isEqualTo(200);
		assertThat(consul.put("/v1/agent/service/register", consulBody(service, 1, 0)).status()).isEqualTo(200);
		Consul.Answer refused = consul.put("/v1/agent/service/register", consulBody(service, 2, 1));
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		assertThat(refused.body()).contains("unroutable", "capacity 99 that left");
		assertThat(Api.on(port)
			.get("/v1/services/%s/instances/i2.%s".formatted(service, service))
			.json()
			.get("weight")
			.asInt()).isEqualTo(100);
	}

	@Test
	void movingInstancesIntoAZoneDoesNotMakeRoomToDrainIt() {
		Api api = Api.on(port);
		String service = Names.service("zonemove");
		for (int i = 1; i <= 4; i++) {
			register(api, service, "a" + i, "za");
			register(api, service, "b" + i, "zb");
		}
		assertThat(ReleaseModesTest.drain(api, service, "a1", "{\"durationSeconds\":30}").status()).isEqualTo(202);
		assertThat(ReleaseModesTest.drain(api, service, "a2", "{\"durationSeconds\":30}").status()).isEqualTo(409);
		assertThat(zone(api, service, "b1", "za").status()).as("a quarter of zb").isEqualTo(200);
		Api.Reply moved = zone(api, service, "b2", "za");
		assertThat(moved.status()).as("half of zb").isEqualTo(409);
		assertThat(moved.json().get("guard").get("scope").asString()).isEqualTo("zone zb");
		Api.Reply drain = ReleaseModesTest.drain(api, service, "a2", "{\"durationSeconds\":30}");
		assertThat(drain.status()).as("a1 out and b1 in: 200 of za's 500").isEqualTo(409);
		assertThat(drain.json().get("guard").get("scope").asString()).isEqualTo("zone za");
		Api.Reply back = zone(api, service, "b1", "zb");
		assertThat(back.status()).as("b1 leaving za while a1 drains: 200 of its 500").isEqualTo(409);
		assertThat(back.json().get("guard").get("scope").asString()).isEqualTo("zone za");
		assertThat(back.json().get("detail").asString()).contains("a1 (draining)");
	}

	@Test
	void oneOfThreeInstancesOnePerZoneDrainsWithoutForceAndTheSecondNamesTheHolder() {
		Api api = Api.on(port);
		String service = Names.service("perzone");
		for (String zone : List.of("za", "zb", "zc")) {
			register(api, service, "i-" + zone, zone);
		}
		assertThat(ReleaseModesTest.drain(api, service, "i-za", "{\"durationSeconds\":30}").status()).isEqualTo(202);
		Api.Reply second = ReleaseModesTest.drain(api, service, "i-zb", "{\"durationSeconds\":30}");
		assertThat(second.status()).isEqualTo(409);
		assertThat(second.json().get("detail").asString()).contains("held by i-za (draining)",
				"maxUnroutable (now \"25%\")");
		assertThat(second.json().get("guard").get("maxUnroutable").asString()).isEqualTo("25%");
	}

	@Test
	void threeInstancesWithoutZonesDrainOneAtATime() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "three", 3, null);
		assertThat(ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":0}").status()).isEqualTo(202);
		assertThat(ReleaseModesTest.drain(api, service, "i1", "{\"durationSeconds\":0}").status()).isEqualTo(409);
		assertThat(
				api.send("POST", "/v1/services/%s/instances/i0/serve".formatted(service), "{\"warmupSeconds\":0}", null)
					.status())
			.isEqualTo(202);
		assertThat(ReleaseModesTest.drain(api, service, "i1", "{\"durationSeconds\":0}").status()).isEqualTo(202);
	}

	@Test
	void capacityADeregistrationTookCountsUntilAReplacementBringsItBack() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "leaving", 4, null);
		assertThat(api.send("DELETE", "/v1/services/%s/instances/i3".formatted(service), null, null).status())
			.isEqualTo(204);
		Api.Reply refused = ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":30}");
		assertThat(refused.status()).as("i3's 100 left, i0's 100 would follow: 200 of 400").isEqualTo(409);
		assertThat(refused.json().get("detail").asString()).contains("i3 removed");
		api.put("/v1/services/%s/instances/i4".formatted(service), Registration.at("h", 80).weight(100));
		assertThat(ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":30}").status()).isEqualTo(202);
	}

	@Test
	void aCountBudgetAdmitsThatManyInstancesAndThePercentStaysCompatible() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "count", 4, null);
		JsonNode edited = api.send("PATCH", "/v1/services/" + service, "{\"maxUnroutable\":\"2\"}", null).json();
		assertThat(edited.get("maxUnroutable").asString()).isEqualTo("2");
		assertThat(edited.get("maxUnroutablePercent").asInt()).as("kept for traffic shifts").isEqualTo(25);
		assertThat(ReleaseModesTest.drain(api, service, "i0", "{\"durationSeconds\":30}").status()).isEqualTo(202);
		assertThat(ReleaseModesTest.drain(api, service, "i1", "{\"durationSeconds\":30}").status()).isEqualTo(202);
		Api.Reply third = ReleaseModesTest.drain(api, service, "i2", "{\"durationSeconds\":30}");
		assertThat(third.status()).isEqualTo(409);
		assertThat(third.json().get("guard").get("maxUnroutable").asString()).isEqualTo("2");
		assertThat(third.json().get("guard").get("limitPercent").isNull()).isTrue();

		JsonNode percent = api.send("PATCH", "/v1/services/" + service, "{\"maxUnroutablePercent\":75}", null).json();
		assertThat(percent.get("maxUnroutable").asString()).isEqualTo("75%");
		assertThat(ReleaseModesTest.drain(api, service, "i2", "{\"durationSeconds\":30}").status()).isEqualTo(202);
		JsonNode audit = api.get("/v1/audit?service=%s&limit=1".formatted(service)).json().get("events").get(0);
		assertThat(audit.get("action").asString()).isEqualTo("instance.drain");
	}

	@Test
	void aBadBudgetIsRefusedNamingTheFieldAndNothingIsWritten() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "badlimit", 1, null);
		for (String body : List.of("{\"maxUnroutable\":\"25 %\"}", "{\"maxUnroutable\":\"101%\"}",
				"{\"maxUnroutable\":\"-1\"}", "{\"maxUnroutable\":\"01\"}", "{\"maxUnroutable\":\"10001\"}",
				"{\"maxUnroutable\":1.5}", "{\"maxUnroutable\":-1}", "{\"maxUnroutable\":null}",
				"{\"maxUnroutable\":\"\"}", "{\"maxUnroutable\":\"1\\u0000\"}")) {
			Api.Reply reply = api.send("PATCH", "/v1/services/" + service, body, null);
			assertThat(reply.status()).as(body).isEqualTo(422);
			assertThat(reply.body()).as(body).contains("/maxUnroutable");
		}
		Api.Reply disagreeing = api.send("PATCH", "/v1/services/" + service,
				"{\"maxUnroutable\":\"20%\",\"maxUnroutablePercent\":30}", null);
		assertThat(disagreeing.status()).isEqualTo(422);
		assertThat(disagreeing.body()).contains("/maxUnroutablePercent");
		JsonNode settings = api.get("/v1/services/" + service).json();
		assertThat(settings.get("maxUnroutable").asString()).isEqualTo("25%");
		assertThat(settings.get("revision").asLong()).isEqualTo(1);
	}

	/**
	 * Ten callers meet at a barrier, each taking about an instance's capacity through
	 * another door (a drain, maintenance, a weight edit to 1 or to 0, a Consul
	 * re-registration at weight 1): 25% of ten instances is two of them, and exactly two
	 * pass.
	 */
	@Test
	void tenRacingCallersThroughEveryDoorAdmitExactlyTheBudget() throws Exception {
		Api api = Api.on(port);
		Consul consul = Consul.on(port);
		String service = Names.service("doorsrace");
		for (int i = 0; i < 10; i++) {
			assertThat(consul.put("/v1/agent/service/register", consulBody(service, i, 100)).status()).isEqualTo(200);
		}
		ExecutorService pool = Executors.newFixedThreadPool(10);
		CyclicBarrier meet = new CyclicBarrier(10);
		List<Future<Integer>> statuses = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			int n = i;
			String id = "i%d.%s".formatted(i, service);
			statuses.add(pool.submit((Callable<Integer>) () -> {
				meet.await(10, TimeUnit.SECONDS);
				return switch (n % 5) {
					case 0 -> ReleaseModesTest.drain(api, service, id, "{\"durationSeconds\":30}").status();
					case 1 -> api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id),
							"{\"reason\":\"race\"}", null)
						.status();
					case 2 -> weight(api, service, id, 1).status();
					case 3 -> weight(api, service, id, 0).status();
					default -> consul.put("/v1/agent/service/register", consulBody(service, n, 1)).status();
				};
			}));
		}
		List<Integer> answered = new ArrayList<>();
		for (Future<Integer> status : statuses) {
			answered.add(status.get(30, TimeUnit.SECONDS));
		}
		pool.shutdownNow();
		assertThat(answered).filteredOn(status -> status / 100 == 2).as("answers %s", answered).hasSize(2);
		assertThat(answered).filteredOn(status -> status == 409).hasSize(8);
		JsonNode summary = api.get("/v1/services/" + service).json();
		assertThat(summary.get("unroutableWeight").asLong()).isBetween(198L, 200L);
	}

	private static String consulBody(String service, int i, int weight) {
		return """
				{"ID":"i%d.%s","Name":"%s","Address":"10.0.0.1","Port":8080,"Check":{"TTL":"300s"},\
				"Weights":{"Passing":%d,"Warning":1}}""".formatted(i, service, service, weight);
	}

	private static void register(Api api, String service, String id, String zone) {
		assertThat(api
			.put("/v1/services/%s/instances/%s".formatted(service, id), Registration.at("h", 80).weight(100).zone(zone))
			.status()).isEqualTo(201);
	}

	private static Api.Reply weight(Api api, String service, String id, int weight) {
		return api.send("PATCH", "/v1/services/%s/instances/%s".formatted(service, id),
				"{\"weight\":%d}".formatted(weight), null);
	}

	private static Api.Reply zone(Api api, String service, String id, String zone) {
		return api.send("PATCH", "/v1/services/%s/instances/%s".formatted(service, id),
				"{\"zone\":\"%s\"}".formatted(zone), null);
	}

}
