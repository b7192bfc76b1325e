package dev.ballast.instance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Consul;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code DELETE /v1/services/{service}} over HTTP on the real PostgreSQL: an empty
 * service goes, one with instances only with force, its settings and capacity peaks go
 * with it, the name's revisions go on, and its watchers are told.
 */
@RegistryTest
class ServiceRemovalTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Test
	void removesAServiceWithoutInstancesAndAuditsIt() {
		Api api = Api.on(port);
		String service = Names.service("rm-empty");
		api.put(instances(service) + "/a", Registration.at("h", 80));
		assertThat(api.delete(instances(service) + "/a").status()).isEqualTo(204);

		assertThat(api.delete("/v1/services/" + service).status()).isEqualTo(204);

		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
		assertThat(api.get(instances(service)).status()).isEqualTo(404);
		List<String> listed = new ArrayList<>();
		api.get("/v1/services").json().forEach(summary -> listed.add(summary.get("name").asString()));
		assertThat(listed).doesNotContain(service);
		JsonNode removal = audit(api, service).getFirst();
		assertThat(removal.get("action").asString()).isEqualTo("service.delete");
		assertThat(removal.get("before").get("name").asString()).isEqualTo(service);
		assertThat(removal.get("after").isNull()).isTrue();
		assertThat(removal.get("forced").asBoolean()).isFalse();
		assertThat(api.delete("/v1/services/" + service).status()).as("gone already").isEqualTo(404);
	}

	@Test
	void refusesToRemoveAServiceWithInstancesAndNamesThem() {
		Api api = Api.on(port);
		String service = Names.service("rm-busy");
		api.put(instances(service) + "/b", Registration.at("h", 80));
		api.put(instances(service) + "/a", Registration.at("h", 81));

		Api.Reply refused = api.delete("/v1/services/" + service);

		assertThat(refused.status()).isEqualTo(409);
		assertThat(refused.json().get("type").asString()).isEqualTo("https://ballast.dev/problems/conflict");
		assertThat(refused.json().get("detail").asString()).contains("has 2 instances (a, b)", "?force=true");
		assertThat(api.get(instances(service)).json().get("instances").size()).as("nothing removed").isEqualTo(2);
		assertThat(audit(api, service).getFirst().get("action").asString()).isEqualTo("instance.create");
	}

	@Test
	void aRefusalNamesAtMostTwentyInstancesAndCountsTheRest() {
		Api api = Api.on(port);
		String service = Names.service("rm-many");
		for (int i = 10; i < 35; i++) {
			api.put(instances(service) + "/i" + i, Registration.at("h", 80));
		}
		String detail = api.delete("/v1/services/" + service).json().get("detail").asString();
		assertThat(detail).contains("has 25 instances (i10, i11,", "i29 and 5 more)").doesNotContain("i30");
	}

	/**
	 * All of them routable: deregistering them one by one is never held to the unroutable
	 * budget (the instances leave), and neither is the forced removal, which removes them
	 * exactly so. Settings and capacity peaks go with the service.
	 */
	@Test
	void aForcedRemovalTakesEveryInstanceAlongAsTheirDeregistrationsWouldAndLeavesNoSettings() {
		Api api = Api.on(port);
		String service = Names.service("rm-force");
		for (String id : List.of("a", "b", "c")) {
			api.put(instances(service) + "/" + id, Registration.at("h", 80).weight(100));
		}
		assertThat(api.patch("/v1/services/" + service, "{\"maxUnroutable\":\"0\",\"leaseTtlSeconds\":60}").status())
			.isEqualTo(200);
		assertThat(api.patch(instances(service) + "/a", "{\"weight\":0}").status())
			.as("the budget of 0 holds a weight edit back")
			.isEqualTo(409);
		long last = api.get("/v1/services/" + service).json().get("revision").asLong();

		assertThat(api.delete("/v1/services/" + service + "?force=true").status()).isEqualTo(204);

		assertThat(api.get("/v1/services/" + service).status()).isEqualTo(404);
		JsonNode removal = audit(api, service).getFirst();
		assertThat(removal.get("action").asString()).isEqualTo("service.delete");
		assertThat(removal.get("forced").asBoolean()).isTrue();
		assertThat(removal.get("details").get("instances").toString()).isEqualTo("[\"a\",\"b\",\"c\"]");
		assertThat(removal.get("before").get("instances").asInt()).isEqualTo(3);

		Api.Reply again = api.put(instances(service) + "/d", Registration.at("h", 80).weight(50));
		assertThat(again.status()).isEqualTo(201);
		assertThat(again.json().get("revision").asLong())
			.as("a revision of the name is never used twice: 3 removals and the delete came after %d", last)
			.isEqualTo(last + 5);
		JsonNode fresh = api.get("/v1/services/" + service).json();
		assertThat(fresh.get("maxUnroutable").asString()).as("default settings").isEqualTo("25%");
		assertThat(fresh.get("leaseTtlSeconds").asInt()).isEqualTo(30);
		assertThat(fresh.get("nominalWeight").asLong()).as("no capacity peak of the removed instances").isEqualTo(50);
	}

	@Test
	void aForcedRemovalLeavesTheConsulCatalog() {
		Api api = Api.on(port);
		Consul consul = Consul.on(port);
		String service = Names.service("rm-consul");
		api.put(instances(service) + "/a", Registration.at("10.0.0.1", 80));
		Consul.Answer listed = consul.get("/v1/catalog/services");
		assertThat(listed.json().has(service)).isTrue();

		CompletableFuture<Consul.Answer> waiting = CompletableFuture
			.supplyAsync(() -> consul.get("/v1/catalog/services?index=%d&wait=20s".formatted(listed.index())));
		assertThat(api.delete("/v1/services/" + service + "?force=true").status()).isEqualTo(204);

		// Other services' changes (other tests' probes) may wake the wait first: follow
		// the index until this service's removal shows, within the bound.
		Consul.Answer after = waiting.join();
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (after.json().has(service) && System.nanoTime() < deadline) {
			assertThat(after.index()).as("the catalog's index goes on rising").isGreaterThan(listed.index());
			after = consul.get("/v1/catalog/services?index=%d&wait=5s".formatted(after.index()));
		}
		assertThat(after.json().has(service)).isFalse();
		assertThat(after.index()).as("the catalog's index goes on rising").isGreaterThan(listed.index());
		assertThat(consul.get("/v1/health/service/" + service).json().size()).isZero();
	}

	@Test
	void itsWatchersGetTheRemovalsThenAFinalDeleteEventAndWaitOnForTheName() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("rm-watch");
		api.put(instances(service) + "/a", Registration.at("h", 80));
		api.put(instances(service) + "/b", Registration.at("h", 81));
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
			CompletableFuture<Api.Reply> blocking = CompletableFuture
				.supplyAsync(() -> api.get(instances(service) + "?index=2&wait=20s"));
			Thread.sleep(300);
			assertThat(blocking).isNotDone();

			assertThat(api.delete("/v1/services/" + service + "?force=true").status()).isEqualTo(204);

			Event first = stream.nextEvent(SOON);
			Event second = stream.nextEvent(SOON);
			Event last = stream.nextEvent(SOON);
			assertThat(List.of(first.name(), second.name(), last.name())).containsExactly("remove", "remove", "delete");
			assertThat(List.of(first.id(), second.id(), last.id())).containsExactly("3", "4", "5");
			assertThat(last.json().get("service").asString()).isEqualTo(service);
			assertThat(last.json().get("revision").asLong()).isEqualTo(5);
			Api.Reply woken = blocking.get(5, TimeUnit.SECONDS);
			assertThat(woken.status()).isEqualTo(200);
			assertThat(woken.json().get("instances").size()).isZero();

			api.put(instances(service) + "/c", Registration.at("h", 82));
			Event back = stream.nextEvent(SOON);
			assertThat(back.name()).isEqualTo("upsert");
			assertThat(back.id()).isEqualTo("6");
			assertThat(back.json().get("id").asString()).isEqualTo("c");
		}
	}

	@Test
	void answersUnknownServicesBadNamesAndBadForceAsOtherCallsDo() {
		Api api = Api.on(port);
		assertThat(api.delete("/v1/services/" + Names.service("rm-ghost")).status()).isEqualTo(404);
		for (String junk : List.of("Bad_Name", "-lead", "trail-", "a".repeat(64), "UPPER")) {
			Api.Reply reply = api.delete("/v1/services/" + junk);
			assertThat(reply.status()).as(junk).isEqualTo(422);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(junk).isEqualTo("#service");
		}
		String service = Names.service("rm-badforce");
		api.put(instances(service) + "/a", Registration.at("h", 80));
		Api.Reply badForce = api.delete("/v1/services/" + service + "?force=yes");
		assertThat(badForce.status()).isEqualTo(400);
		assertThat(badForce.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#force");
		assertThat(api.get(instances(service)).json().get("instances").size()).isEqualTo(1);
	}

	private static String instances(String service) {
		return "/v1/services/" + service + "/instances";
	}

	private static List<JsonNode> audit(Api api, String service) {
		Api.Reply reply = api.get("/v1/audit?limit=100&service=" + service);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		List<JsonNode> events = new ArrayList<>();
		reply.json().get("events").forEach(events::add);
		return events;
	}

}
