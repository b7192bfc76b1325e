package dev.ballast.release;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every door that can take weight away, other than drains and maintenance (see
 * {@link ReleaseModesTest}), held to the same unroutable budget: weight edits to 0 with
 * and without {@code until}, re-registrations at weight 0, concurrent mixes, and
 * deregistration, which is not guarded.
 */
@RegistryTest
class GuardedDoorsTest {

	@LocalServerPort
	int port;

	@Test
	void aWeightEditToZeroIsGuardedLikeADrainAndForcePassesItAudited() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "zero", 4, null);
		assertThat(weight(api, service, "i0", 0, "").status()).isEqualTo(200);

		Api.Reply refused = weight(api, service, "i1", 0, "");
		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.header("Content-Type"))
			.hasValueSatisfying(type -> assertThat(type).contains("application/problem+json"));
		JsonNode guard = refused.json().get("guard");
		assertThat(fieldNames(guard)).containsExactly("scope", "maxUnroutable", "limitPercent", "currentPercent",
				"resultingPercent", "nominalWeight", "unroutableWeight", "resultingWeight", "holders");
		assertThat(guard.get("scope").asString()).isEqualTo("service");
		assertThat(guard.get("nominalWeight").asLong()).as("i0 counts with its last positive weight").isEqualTo(400);
		assertThat(guard.get("unroutableWeight").asLong()).isEqualTo(100);
		assertThat(guard.get("resultingWeight").asLong()).isEqualTo(200);
		assertThat(guard.get("holders").valueStream().map(JsonNode::asString)).containsExactly("i0");
		assertThat(refused.json().get("detail").asString()).contains("i1", "50.0%", "25%", "?force=true");
		assertThat(instance(api, service, "i1").get("weight").asInt()).isEqualTo(100);

		assertThat(weight(api, service, "i1", 0, "?force=true").status()).isEqualTo(200);
		JsonNode forced = latestAudit(api, service);
		assertThat(forced.get("action").asString()).isEqualTo("instance.edit");
		assertThat(forced.get("instance").asString()).isEqualTo("i1");
		assertThat(forced.get("forced").asBoolean()).isTrue();
		assertThat(forced.get("details").get("guardOverridden").asBoolean()).isTrue();

		JsonNode summary = api.get("/v1/services/" + service).json();
		assertThat(summary.get("nominalWeight").asLong()).isEqualTo(400);
	}

	@Test
	void aTimedWeightEditToZeroIsGuardedToo() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "until", 4, null);
		String until = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();
		String body = "{\"weight\":0,\"until\":\"%s\"}".formatted(until);
		assertThat(patch(api, service, "i0", body, "").status()).isEqualTo(200);
		assertThat(patch(api, service, "i1", body, "").status()).isEqualTo(409);
		assertThat(patch(api, service, "i1", body, "?force=true").status()).isEqualTo(200);
	}

	@Test
	void aZoneLosesNoMoreThanItsShareThroughWeightEdits() {
		Api api = Api.on(port);
		String service = Names.service("zonezero");
		for (int i = 0; i < 2; i++) {
			register(api, service, "a" + i, Registration.at("h", 80).weight(100).zone("az-1"));
		}
		for (int i = 0; i < 6; i++) {
			register(api, service, "b" + i, Registration.at("h", 80).weight(100).zone("az-2"));
		}
		assertThat(weight(api, service, "a0", 0, "").status()).as("one instance while nothing else is out")
			.isEqualTo(200);
		Api.Reply refused = weight(api, service, "a1", 0, "");
		assertThat(refused.status()).as("all of az-1, a quarter of the service").isEqualTo(409);
		assertThat(refused.json().get("guard").get("scope").asString()).isEqualTo("zone az-1");
	}

	@Test
	void aReRegistrationAtWeightZeroIsGuardedAndTakesForceInItsBody() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "rereg", 4, null);
		assertThat(register(api, service, "i0", Registration.at("h", 80).weight(0)).status()).isEqualTo(200);
		Api.Reply refused = register(api, service, "i1", Registration.at("h", 80).weight(0));
		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.json().get("detail").asString()).contains("\"force\": true");
		assertThat(instance(api, service, "i1").get("weight").asInt()).isEqualTo(100);
		assertThat(register(api, service, "i1", Registration.at("h", 80).weight(0).member("force", "true")).status())
			.isEqualTo(200);
		assertThat(latestAudit(api, service).get("forced").asBoolean()).isTrue();
	}

	@Test
	void anInstanceRegisteredAtZeroTakesNothingAwayAndCountsNothing() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "newzero", 1, null);
		for (int i = 1; i < 4; i++) {
			assertThat(register(api, service, "z" + i, Registration.at("h", 80).weight(0)).status()).isEqualTo(201);
		}
		assertThat(api.get("/v1/services/" + service).json().get("nominalWeight").asLong()).isEqualTo(100);
	}

	@Test
	void tenConcurrentWeightEditsAndDrainsPassExactlyTheBudget() throws Exception {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "mixrace", 10, null);
		ExecutorService pool = Executors.newFixedThreadPool(10);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<Integer>> statuses = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			String id = "i" + i;
			boolean edit = i % 2 == 0;
			statuses.add(pool.submit((Callable<Integer>) () -> {
				start.await();
				return edit ? weight(api, service, id, 0, "").status()
						: ReleaseModesTest.drain(api, service, id, "{\"durationSeconds\":30}").status();
			}));
		}
		start.countDown();
		List<Integer> answered = new ArrayList<>();
		for (Future<Integer> status : statuses) {
			answered.add(status.get(30, TimeUnit.SECONDS));
		}
		pool.shutdownNow();
		assertThat(answered).filteredOn(status -> status / 100 == 2).as("answers %s", answered).hasSize(2);
		assertThat(answered).filteredOn(status -> status == 409).hasSize(8);
	}

	@Test
	void deregistrationIsNotGuarded() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "leave", 4, null);
		for (int i = 0; i < 4; i++) {
			assertThat(api.send("DELETE", "/v1/services/%s/instances/i%d".formatted(service, i), null, null).status())
				.isEqualTo(204);
		}
	}

	@Test
	void aBadForceParameterIsA400NamingIt() {
		Api api = Api.on(port);
		String service = ReleaseModesTest.service(api, "badforce", 1, null);
		Api.Reply reply = weight(api, service, "i0", 0, "?force=yes");
		assertThat(reply.status()).isEqualTo(400);
		assertThat(reply.body()).contains("force");
		assertThat(instance(api, service, "i0").get("weight").asInt()).isEqualTo(100);
	}

	private static Api.Reply weight(Api api, String service, String id, int weight, String query) {
		return patch(api, service, id, "{\"weight\":%d}".formatted(weight), query);
	}

	private static Api.Reply patch(Api api, String service, String id, String body, String query) {
		return api.send("PATCH", "/v1/services/%s/instances/%s%s".formatted(service, id, query), body, null);
	}

	private static Api.Reply register(Api api, String service, String id, Registration body) {
		return api.put("/v1/services/%s/instances/%s".formatted(service, id), body);
	}

	private static JsonNode instance(Api api, String service, String id) {
		return api.get("/v1/services/%s/instances/%s".formatted(service, id)).json();
	}

	private static JsonNode latestAudit(Api api, String service) {
		return api.get("/v1/audit?service=%s&limit=1".formatted(service)).json().get("events").get(0);
	}

	private static List<String> fieldNames(JsonNode node) {
		List<String> names = new ArrayList<>();
		node.propertyNames().forEach(names::add);
		return names;
	}

}
