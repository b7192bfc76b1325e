package dev.ballast.consul;

import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Consul;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tags through the Consul surface against the whole registry: registered through either
 * door and seen through both, filtered with {@code ?tag=} as Consul 1.x filters, listed
 * per service by {@code /v1/catalog/services}, refused with nothing written.
 */
@RegistryTest
class ConsulTagsTest extends ConsulFixture {

	ConsulTagsTest() {
		super("cnt");
	}

	void register(String name, String tags) {
		register(name, "60s", ",\"Tags\":" + tags);
	}

	static List<String> strings(JsonNode array) {
		List<String> strings = new ArrayList<>();
		array.forEach(value -> strings.add(value.stringValue()));
		return strings;
	}

	List<String> listed(String path) {
		Consul.Answer answer = consul.get(path);
		assertThat(answer.status()).as(answer.body()).isEqualTo(200);
		List<String> ids = new ArrayList<>();
		answer.json()
			.forEach(entry -> ids.add(entry.has("Service") ? entry.get("Service").get("ID").stringValue()
					: entry.get("ServiceID").stringValue()));
		return ids;
	}

	@Test
	void consulTagsAreKeptInOrderAndSeenThroughBothDoors() {
		register("a", "[\"v2\",\"traefik.enable=true\",\"v2\"]");

		JsonNode stored = ballast("a");
		assertThat(strings(stored.get("tags"))).containsExactly("v2", "traefik.enable=true");
		JsonNode health = consul.get("/v1/health/service/" + service).json().get(0);
		assertThat(strings(health.get("Service").get("Tags"))).containsExactly("v2", "traefik.enable=true");
		assertThat(strings(health.get("Checks").get(0).get("ServiceTags"))).containsExactly("v2",
				"traefik.enable=true");
		JsonNode catalog = consul.get("/v1/catalog/service/" + service).json().get(0);
		assertThat(strings(catalog.get("ServiceTags"))).containsExactly("v2", "traefik.enable=true");
	}

	@Test
	void tagsRegisteredThroughBallastsOwnApiReachConsulAnswers() {
		api.put("/v1/services/%s/instances/%s".formatted(service, id("a")),
				Registration.at("10.0.0.1", 80).tags("blue", "v1"));

		assertThat(strings(consul.get("/v1/health/service/" + service).json().get(0).get("Service").get("Tags")))
			.containsExactly("blue", "v1");
	}

	@Test
	void severalTagParametersMustAllMatchComparedWithoutCase() {
		register("a", "[\"v1\",\"Blue\"]");
		register("b", "[\"v1\",\"green\"]");
		register("c", "[\"v2\",\"blue\"]");
		register("d", "[]");

		for (String path : List.of("/v1/health/service/" + service, "/v1/catalog/service/" + service)) {
			assertThat(listed(path)).containsExactly(id("a"), id("b"), id("c"), id("d"));
			assertThat(listed(path + "?tag=v1")).containsExactly(id("a"), id("b"));
			assertThat(listed(path + "?tag=blue")).as("Consul compares tags without case")
				.containsExactly(id("a"), id("c"));
			assertThat(listed(path + "?tag=v1&tag=BLUE")).containsExactly(id("a"));
			assertThat(listed(path + "?tag=v1&tag=v2")).isEmpty();
			assertThat(listed(path + "?tag=v3")).isEmpty();
			assertThat(listed(path + "?tag=")).as("no instance carries an empty tag").isEmpty();
		}
	}

	@Test
	void aTagQueryStillListsOnlyRoutableInstances() {
		register("a", "[\"v1\"]");
		register("b", "[\"v1\"]");
		api.patch("/v1/services/%s/instances/%s?force=true".formatted(service, id("b")), "{\"weight\":0}");

		assertThat(listed("/v1/health/service/" + service + "?tag=v1")).containsExactly(id("a"));
	}

	@Test
	void theCatalogListsEachServicesTagsOnceSorted() {
		register("a", "[\"v2\",\"b\",\"é\"]");
		register("b", "[\"v2\",\"A\",\"z\"]");
		register("c", "[]");
		String bare = Names.service("cnt");
		consul.put("/v1/agent/service/register", """
				{"ID":"x.%s","Name":"%s","Port":1,"Check":{"TTL":"60s"}}""".formatted(bare, bare));

		JsonNode services = consul.get("/v1/catalog/services").json();

		// By code point, as Go sorts strings: upper case before lower, é after z.
		assertThat(strings(services.get(service))).containsExactly("A", "b", "v2", "z", "é");
		assertThat(services.get(bare).isEmpty()).isTrue();
	}

	@Test
	void aTagChangeWakesABlockingQueryAndRaisesTheIndex() throws Exception {
		register("a", "[\"v1\"]");
		Consul.Answer first = consul.get("/v1/health/service/" + service);

		java.util.concurrent.CompletableFuture<Consul.Answer> blocked = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> consul.get("/v1/health/service/" + service + "?index=" + first.index() + "&wait=20s"));
		Thread.sleep(300);
		assertThat(blocked).isNotDone();
		register("a", "[\"v2\"]");
		Consul.Answer changed = blocked.get(10, java.util.concurrent.TimeUnit.SECONDS);

		assertThat(changed.index()).isGreaterThan(first.index());
		assertThat(strings(changed.json().get(0).get("Service").get("Tags"))).containsExactly("v2");
	}

	@Test
	void refusesBadTagsNamingTheTagAndWritesNothing() {
		record Refused(String tags, String field) {
		}
		List<String> tooMany = new ArrayList<>();
		for (int i = 0; i < 33; i++) {
			tooMany.add("\"t" + i + "\"");
		}
		for (Refused refused : List.of(new Refused("[\"ok\",\"\"]", "Invalid Tags[1]: "),
				new Refused("[\"ok\",\"ok2\",\"tab\\there\"]", "Invalid Tags[2]: "),
				new Refused("[\"ok\",7]", "Invalid Tags[1]: must be a string"),
				new Refused("[\"" + "x".repeat(129) + "\"]", "Invalid Tags[0]: "),
				new Refused("\"v1\"", "Invalid Tags: must be a list"),
				new Refused("[" + String.join(",", tooMany) + "]", "Invalid Tags: an instance has at most 32 tags"))) {
			Consul.Answer answer = consul.put("/v1/agent/service/register", """
					{"ID":"%s","Name":"%s","Port":8080,"Tags":%s,"Check":{"TTL":"60s"}}""".formatted(id("a"), service,
					refused.tags()));

			assertThat(answer.status()).as(refused.tags()).isEqualTo(400);
			assertThat(answer.body()).as(refused.tags()).startsWith(refused.field());
			assertThat(api.get("/v1/services/" + service).status()).as("nothing written").isEqualTo(404);
		}
	}

}
