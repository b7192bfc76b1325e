package dev.ballast.release;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** Drains, warm-ups and maintenance through HTTP, seen by a watcher, under the guard. */
@RegistryTest
class ReleaseModesTest {

	@LocalServerPort
	int port;

	@Test
	void aDrainRampsDownInIntegerStepsToExactlyZeroThenDrains() {
		Api api = Api.on(port);
		String service = service(api, "drain", 4, null);
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(Duration.ofSeconds(5)).name()).isEqualTo("snapshot");
			Api.Reply drained = api.send("POST", "/v1/services/%s/instances/i0/drain".formatted(service),
					"{\"durationSeconds\":3}", null);
			assertThat(drained.status()).isEqualTo(202);
			assertThat(drained.json().get("mode").asString()).isEqualTo("DRAINING");

			List<Integer> weights = new ArrayList<>();
			String mode = "DRAINING";
			while (!mode.equals("DRAINED")) {
				Event event = stream.nextEvent(Duration.ofSeconds(10));
				JsonNode instance = event.json();
				assertThat(instance.get("id").asString()).isEqualTo("i0");
				assertThat(instance.get("effectiveWeight").isInt()).isTrue();
				assertThat(instance.get("weight").isInt()).isTrue();
				weights.add(instance.get("effectiveWeight").asInt());
				mode = instance.get("mode").asString();
			}
			assertThat(weights).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
			assertThat(weights.getLast()).isZero();
			assertThat(weights.stream().filter(w -> w > 0 && w < 100).distinct().count())
				.as("intermediate steps in %s", weights)
				.isGreaterThanOrEqualTo(2);
			JsonNode heartbeat = api
				.send("POST", "/v1/services/%s/instances/i0/heartbeat".formatted(service), null, null)
				.json();
			assertThat(heartbeat.get("mode").asString()).isEqualTo("DRAINED");
			assertThat(heartbeat.get("effectiveWeight").asInt()).isZero();
		}
	}

	@Test
	void servingAgainWarmsUpFromOneToTheConfiguredWeight() {
		Api api = Api.on(port);
		String service = service(api, "warm", 4, null);
		api.send("POST", "/v1/services/%s/instances/i1/drain".formatted(service), "{\"durationSeconds\":0}", null);
		awaitMode(api, service, "i1", "DRAINED");
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			stream.nextEvent(Duration.ofSeconds(5));
			Api.Reply serve = api.send("POST", "/v1/services/%s/instances/i1/serve".formatted(service),
					"{\"warmupSeconds\":3}", null);
			assertThat(serve.status()).isEqualTo(202);
			assertThat(serve.json().get("mode").asString()).isEqualTo("WARMING");
			assertThat(serve.json().get("effectiveWeight").asInt()).isEqualTo(1);
			List<Integer> weights = new ArrayList<>();
			String mode = "WARMING";
			while (!mode.equals("SERVING")) {
				JsonNode instance = stream.nextEvent(Duration.ofSeconds(10)).json();
				weights.add(instance.get("effectiveWeight").asInt());
				mode = instance.get("mode").asString();
			}
			assertThat(weights).isSorted();
			assertThat(weights.getFirst()).isEqualTo(1);
			assertThat(weights.getLast()).isEqualTo(100);
		}
	}

	@Test
	void refusesADrainPastTheBudgetWith409ExplainingItUnlessForced() {
		Api api = Api.on(port);
		String service = service(api, "guard", 4, null);
		assertThat(drain(api, service, "i0", "{}").status()).isEqualTo(202);
		Api.Reply refused = drain(api, service, "i1", "{}");
		assertThat(refused.status()).isEqualTo(409);
		JsonNode guard = refused.json().get("guard");
		assertThat(guard.get("scope").asString()).isEqualTo("service");
		assertThat(guard.get("limitPercent").asInt()).isEqualTo(25);
		assertThat(guard.get("currentPercent").asDouble()).isEqualTo(25.0);
		assertThat(guard.get("resultingPercent").asDouble()).isEqualTo(50.0);
		assertThat(guard.get("holders").valueStream().map(JsonNode::asString)).containsExactly("i0");
		assertThat(refused.json().get("detail").asString()).contains("i1", "50.0%", "25%", "i0", "force");
		assertThat(mode(api, service, "i1")).isEqualTo("SERVING");

		assertThat(drain(api, service, "i1", "{\"force\":true}").status()).isEqualTo(202);
		assertThat(mode(api, service, "i1")).isEqualTo("DRAINING");
		String metrics = Api.unchecked(port).get("/actuator/prometheus").body();
		assertThat(metrics).containsPattern("ballast_guard_forced_total\\{[^}]*service=\"%s\"".formatted(service));
	}

	@Test
	void admitsExactlyTwoOfTenConcurrentDrains() throws Exception {
		Api api = Api.on(port);
		String service = service(api, "race", 10, null);
		ExecutorService pool = Executors.newFixedThreadPool(10);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Integer>> statuses = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			String id = "i" + i;
			statuses.add(pool.submit((Callable<Integer>) () -> {
				start.await();
				return drain(api, service, id, "{\"durationSeconds\":30}").status();
			}));
		}
		start.countDown();
		List<Integer> answered = new ArrayList<>();
		for (Future<Integer> status : statuses) {
			answered.add(status.get(30, TimeUnit.SECONDS));
		}
		pool.shutdown();
		assertThat(answered).filteredOn(status -> status == 202).hasSize(2);
		assertThat(answered).filteredOn(status -> status == 409).hasSize(8);
	}

	@Test
	void guardsEachZoneOnItsOwn() {
		Api api = Api.on(port);
		String service = Names.service("zones");
		for (int i = 0; i < 8; i++) {
			String zone = i < 2 ? "az-1" : "az-2";
			api.put("/v1/services/%s/instances/i%d".formatted(service, i),
					Registration.at("h", 80).weight(100).zone(zone));
		}
		assertThat(drain(api, service, "i0", "{}").status()).as("one instance while nothing else is out")
			.isEqualTo(202);
		Api.Reply refused = drain(api, service, "i1", "{}");
		assertThat(refused.status()).as("all of az-1, a quarter of the service").isEqualTo(409);
		assertThat(refused.json().get("guard").get("scope").asString()).isEqualTo("zone az-1");
		assertThat(drain(api, service, "i2", "{}").status()).isEqualTo(202);
	}

	@Test
	void drainsABatchAllOrNone() {
		Api api = Api.on(port);
		String service = service(api, "batch", 8, null);
		Api.Reply refused = api.send("POST", "/v1/services/%s/drains".formatted(service),
				"{\"instances\":[\"i0\",\"i1\",\"i2\"],\"durationSeconds\":5}", null);
		assertThat(refused.status()).isEqualTo(409);
		for (int i = 0; i < 3; i++) {
			assertThat(mode(api, service, "i" + i)).isEqualTo("SERVING");
		}
		Api.Reply admitted = api.send("POST", "/v1/services/%s/drains".formatted(service),
				"{\"instances\":[\"i0\",\"i1\"],\"durationSeconds\":5}", null);
		assertThat(admitted.status()).isEqualTo(202);
		assertThat(admitted.json().valueStream().map(i -> i.get("mode").asString())).containsOnly("DRAINING");
		assertThat(
				api.send("POST", "/v1/services/%s/drains".formatted(service), "{\"instances\":[\"i0\",\"nope\"]}", null)
					.status())
			.isEqualTo(404);
		assertThat(api.send("POST", "/v1/services/%s/drains".formatted(service), "{\"instances\":[]}", null).status())
			.isEqualTo(422);
	}

	@Test
	void repeatingADrainReturnsItWithoutRestartingTheRamp() {
		Api api = Api.on(port);
		String service = service(api, "again", 4, null);
		JsonNode first = drain(api, service, "i0", "{\"durationSeconds\":60}").json();
		JsonNode second = drain(api, service, "i0", "{\"durationSeconds\":60}").json();
		assertThat(second.get("revision").asLong()).isEqualTo(first.get("revision").asLong());
		assertThat(second.get("mode").asString()).isEqualTo("DRAINING");
	}

	@Test
	void maintenanceTakesAnInstanceOutAtOnceAndEndsByItselfAtItsTime() {
		Api api = Api.on(port);
		String service = service(api, "maint", 4, null);
		String until = Instant.now().plusSeconds(2).toString();
		Api.Reply reply = api.send("POST", "/v1/services/%s/instances/i0/maintenance".formatted(service),
				"{\"reason\":\"kernel upgrade\",\"until\":\"%s\"}".formatted(until), null);
		assertThat(reply.status()).isEqualTo(202);
		assertThat(reply.json().get("mode").asString()).isEqualTo("MAINTENANCE");
		assertThat(reply.json().get("effectiveWeight").asInt()).isZero();
		assertThat(reply.json().get("modeReason").asString()).isEqualTo("kernel upgrade");
		assertThat(reply.json().get("modeUntil").asString()).isNotEmpty();
		assertThat(api
			.send("POST", "/v1/services/%s/instances/i1/maintenance".formatted(service), "{\"reason\":\"also\"}", null)
			.status()).as("guarded like a drain").isEqualTo(409);
		awaitMode(api, service, "i0", "SERVING");
		JsonNode back = api.get("/v1/services/%s/instances/i0".formatted(service)).json();
		assertThat(back.get("effectiveWeight").asInt()).isEqualTo(100);
		assertThat(back.has("modeReason")).isFalse();
	}

	@Test
	void refusesBadModeRequestsWithTheFieldNamed() {
		Api api = Api.on(port);
		String service = service(api, "badmode", 4, null);
		String[][] cases = { { "drain", "{\"durationSeconds\":\"5\"}", "/durationSeconds" },
				{ "drain", "{\"durationSeconds\":-1}", "/durationSeconds" },
				{ "drain", "{\"durationSeconds\":1.5}", "/durationSeconds" },
				{ "drain", "{\"force\":\"yes\"}", "/force" }, { "drain", "{\"extra\":1}", "/extra" },
				{ "serve", "{\"warmupSeconds\":99999}", "/warmupSeconds" }, { "maintenance", "{}", "/reason" },
				{ "maintenance", "{\"reason\":\"\"}", "/reason" },
				{ "maintenance", "{\"reason\":\"x\",\"until\":\"2000-01-01T00:00:00Z\"}", "/until" },
				{ "maintenance", "{\"reason\":\"x\",\"until\":\"tomorrow\"}", "/until" } };
		for (String[] bad : cases) {
			Api.Reply reply = api.send("POST", "/v1/services/%s/instances/i0/%s".formatted(service, bad[0]), bad[1],
					null);
			assertThat(reply.status()).as(bad[0] + " " + bad[1]).isEqualTo(422);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(bad[1]).isEqualTo(bad[2]);
		}
		assertThat(mode(api, service, "i0")).isEqualTo("SERVING");
		assertThat(drain(api, service, "ghost", "{}").status()).isEqualTo(404);
	}

	static String service(Api api, String prefix, int instances, String zone) {
		String service = Names.service(prefix);
		for (int i = 0; i < instances; i++) {
			api.put("/v1/services/%s/instances/i%d".formatted(service, i), Registration.at("h", 80).weight(100));
		}
		return service;
	}

	static Api.Reply drain(Api api, String service, String id, String body) {
		return api.send("POST", "/v1/services/%s/instances/%s/drain".formatted(service, id), body, null);
	}

	static String mode(Api api, String service, String id) {
		return api.get("/v1/services/%s/instances/%s".formatted(service, id)).json().get("mode").asString();
	}

	static void awaitMode(Api api, String service, String id, String mode) {
		Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> mode(api, service, id).equals(mode));
	}

}
