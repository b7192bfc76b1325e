package dev.ballast.consul;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Consul;
import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consul's read endpoints against the whole registry: blocking queries and their index,
 * the answers consumers route by, and which token each call needs.
 */
@RegistryTest
class ConsulCatalogTest extends ConsulFixture {

	ConsulCatalogTest() {
		super("cnr");
	}

	void register(String name, int weight) {
		register(name, "60s", ",\"Weights\":{\"Passing\":%d}".formatted(weight));
	}

	String health() {
		return "/v1/health/service/" + service;
	}

	@Test
	void aBlockingQueryAnswersAtTheFirstChangeWithAHigherIndex() throws Exception {
		register("a", 100);
		register("b", 100);
		Consul.Answer first = consul.get(health());

		CompletableFuture<Consul.Answer> blocked = CompletableFuture
			.supplyAsync(() -> consul.get(health() + "?index=" + first.index() + "&wait=20s"));
		Thread.sleep(300);
		assertThat(blocked).isNotDone();
		long edited = System.nanoTime();
		api.patch("/v1/services/%s/instances/%s".formatted(service, id("a")), "{\"weight\":40}");
		Consul.Answer changed = blocked.get(10, TimeUnit.SECONDS);

		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - edited)).isLessThan(5000);
		assertThat(changed.index()).isGreaterThan(first.index());
		assertThat(changed.weights()).containsEntry(id("a"), 40).containsEntry(id("b"), 100);
		assertThat(changed.json().get(0).get("Service").get("Meta").get("weight").stringValue()).isEqualTo("40");
	}

	@Test
	void aBlockingQueryWithNothingNewAnswersTheSameIndexAtItsWait() {
		register("a", 100);
		Consul.Answer first = consul.get(health());

		long started = System.nanoTime();
		Consul.Answer same = consul.get(health() + "?index=" + first.index() + "&wait=1s");

		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(900L, 5000L);
		assertThat(same.index()).isEqualTo(first.index());
		assertThat(same.weights()).isEqualTo(first.weights());
	}

	@Test
	void theIndexNeverGoesBackwardsAndAnUnknownServiceIsEmptyAtIndexOne() {
		Consul.Answer unknown = consul.get(health());
		assertThat(unknown.status()).isEqualTo(200);
		assertThat(unknown.json().size()).isZero();
		assertThat(unknown.index()).isEqualTo(1);
		long last = unknown.index();
		for (String name : List.of("a", "c", "d", "e")) {
			register(name, 100);
		}
		for (String call : List.of("register b", "drain a", "deregister b", "fail a")) {
			switch (call) {
				case "register b" -> register("b", 100);
				case "drain a" -> api.send("POST", "/v1/services/%s/instances/%s/drain".formatted(service, id("a")),
						"{\"durationSeconds\":1}", null);
				case "deregister b" -> consul.put("/v1/agent/service/deregister/" + id("b"));
				default -> consul.put("/v1/agent/check/fail/service:" + id("a"));
			}
			for (String path : List.of(health(), "/v1/catalog/service/" + service, "/v1/health/checks/" + service)) {
				long index = consul.get(path).index();
				assertThat(index).as("%s after %s", path, call).isGreaterThan(last - 1);
			}
			long now = consul.get(health()).index();
			assertThat(now).as("after " + call).isGreaterThan(last);
			last = now;
		}
	}

	@Test
	void aDrainRampsDownThroughTheAnswersAndLeavesThemAtZero() throws Exception {
		register("a", 100);
		register("b", 100);
		register("c", 100);
		register("d", 100);
		api.send("POST", "/v1/services/%s/instances/%s/drain".formatted(service, id("a")), "{\"durationSeconds\":2}",
				null);

		Consul.Answer answer = consul.get(health());
		List<Integer> seen = new java.util.ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
		while (answer.weights().containsKey(id("a")) && System.nanoTime() < deadline) {
			seen.add(answer.weights().get(id("a")));
			answer = consul.get(health() + "?index=" + answer.index() + "&wait=5s&subscriber=lb-" + service);
		}

		assertThat(answer.weights()).containsOnlyKeys(id("b"), id("c"), id("d"));
		assertThat(seen).isSortedAccordingTo(java.util.Comparator.reverseOrder()).allMatch(weight -> weight >= 1);
		JsonNode subscribers = api.get("/v1/services/%s/subscribers".formatted(service)).json();
		assertThat(subscribers.get("subscribers").get(0).get("name").stringValue()).isEqualTo("lb-" + service);
	}

	@Test
	void theCatalogIndexRisesWithAChangeToAnyServiceAndWakesItsBlockingQuery() throws Exception {
		register("a", 100);
		Consul.Answer first = consul.get("/v1/catalog/services");
		assertThat(first.json().has(service)).isTrue();
		assertThat(first.json().get(service).size()).isZero();

		// Other tests' leftovers expire in the background and raise the catalog's index
		// too: such a wake must come with a higher index, and the query blocks again
		// from it.
		Consul.Answer before = first;
		CompletableFuture<Consul.Answer> blocked;
		for (int wakes = 0;; wakes++) {
			long index = before.index();
			blocked = CompletableFuture
				.supplyAsync(() -> consul.get("/v1/catalog/services?index=" + index + "&wait=20s"));
			Thread.sleep(300);
			if (!blocked.isDone()) {
				break;
			}
			Consul.Answer early = blocked.get();
			assertThat(early.index()).as("index of a wake by another change").isGreaterThan(index);
			assertThat(wakes).as("wakes by other services' changes").isLessThan(10);
			before = early;
		}
		String other = Names.service("cnr");
		consul.put("/v1/agent/service/register", """
				{"ID":"x.%s","Name":"%s","Port":1,"Check":{"TTL":"60s"}}""".formatted(other, other));
		Consul.Answer changed = blocked.get(10, TimeUnit.SECONDS);

		assertThat(changed.index()).isGreaterThan(before.index());
		assertThat(changed.json().has(other)).isTrue();
	}

	@Test
	void consulParametersAreAcceptedInConsulsSpellingsAndBadOnesRefused() {
		register("a", 100);
		for (String query : List.of("?passing", "?passing=", "?passing=1", "?passing=true", "?passing=false",
				"?passing=0", "?stale", "?consistent", "?cached", "?dc=dc1", "?wait=1m30s&index=0", "?near=_agent")) {
			Consul.Answer answer = consul.get(health() + query);
			assertThat(answer.status()).as(query).isEqualTo(200);
			assertThat(answer.weights()).as(query).containsOnlyKeys(id("a"));
		}
		for (String query : List.of("?passing=maybe", "?index=x", "?index=-1", "?wait=5", "?wait=soon", "?dc=eu",
				"?filter=Service.Port%3D%3D1")) {
			Consul.Answer refused = consul.get(health() + query);
			assertThat(refused.status()).as(query).isEqualTo(400);
		}
		assertThat(consul.get("/v1/health/service/Not_A_Name").status()).isEqualTo(400);
	}

	@Test
	void theStatusAndAgentFactsAnswerAsConsul() {
		Consul.Answer leader = consul.as(null).get("/v1/status/leader");
		assertThat(leader.json().stringValue()).matches(".+:\\d+");
		JsonNode self = consul.get("/v1/agent/self").json();
		assertThat(self.get("Config").get("Datacenter").stringValue()).isEqualTo("dc1");
	}

	@Test
	void tokensComeAsConsulSendsThemAndScopesHold() {
		register("a", 100);
		String reader = token("{\"name\":\"consul reader\",\"role\":\"reader\"}");
		String stranger = token(
				"{\"name\":\"consul stranger\",\"role\":\"registrant\",\"services\":[\"elsewhere-*\"]}");

		assertThat(consul.as(reader).get(health()).status()).isEqualTo(200);
		assertThat(consul.as(null).get(health() + "?token=" + reader).status()).isEqualTo(200);
		assertThat(consul.as(null).get(health()).status()).isEqualTo(401);
		assertThat(consul.as("blst_not-a-token").get(health()).status()).isEqualTo(401);
		assertThat(consul.as(reader).put("/v1/agent/check/pass/service:" + id("a")).status()).isEqualTo(403);
		Consul.Answer outside = consul.as(stranger).put("/v1/agent/service/register", """
				{"ID":"s.%s","Name":"%s","Port":1,"Check":{"TTL":"60s"}}""".formatted(service, service));
		assertThat(outside.status()).isEqualTo(403);
		assertThat(outside.body()).contains("Permission denied");
		assertThat(api.get("/v1/services/%s/instances/s.%s".formatted(service, service)).status()).isEqualTo(404);
		assertThat(consul.as(stranger).put("/v1/agent/service/deregister/" + id("a")).status()).isEqualTo(403);
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("a"))).status()).isEqualTo(200);
		assertThat(api.sendWith("GET", "/v1/services?token=" + reader, null, java.util.Map.of("Authorization", ""))
			.status()).as("?token= is read on Consul's paths only").isEqualTo(401);
	}

	@Test
	void withoutATokenTheCatalogIsEmptyAndMarkedFiltered() {
		register("a", 100);

		Consul.Answer anonymous = consul.as(null).get("/v1/catalog/services");

		assertThat(anonymous.status()).isEqualTo(200);
		assertThat(anonymous.json().size()).isZero();
		assertThat(anonymous.header("X-Consul-Results-Filtered-By-ACLs")).hasValue("true");
		assertThat(consul.get("/v1/catalog/services").json().has(service)).isTrue();
	}

	private String token(String body) {
		Api.Reply reply = api.send("POST", "/v1/tokens", body, null);
		assertThat(reply.status()).isEqualTo(201);
		return reply.json().get("token").asString();
	}

}
