package dev.ballast.consul;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.ballast.support.Api;
import dev.ballast.support.Consul;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A zone's view through the Consul surface, asked with the query tag
 * {@code ballast.zone=<zone>}, as Spring Cloud Consul's {@code default-query-tag} and the
 * npm client's {@code tag} send it: the worked example of docs/locality.md (two zones of
 * three at weight 100, a cap of 20%, two of zone za's three in maintenance), with each
 * listed instance's {@code Weights.Passing} and {@code Meta.weight} the zone's weight and
 * an instance the zone sends nothing left out. {@link Consul} checks every answer's
 * shape: integers, and a {@code Meta.weight} that is the canonical decimal of a weight of
 * at least 1.
 */
@RegistryTest
class ConsulZonesTest extends ConsulFixture {

	private static final List<String> PATHS = List.of("/v1/health/service/", "/v1/catalog/service/");

	ConsulZonesTest() {
		super("czn");
	}

	@BeforeEach
	void twoZonesOfThree() {
		for (String name : List.of("a1", "a2", "a3", "b1", "b2", "b3")) {
			Api.Reply reply = api.put("/v1/services/%s/instances/%s".formatted(service, id(name)),
					Registration.at("10.0.0." + (name.charAt(1) - '0'), 8000 + name.charAt(0))
						.weight(100)
						.zone("z" + name.charAt(0))
						.tags(name.equals("b3") ? "v1" : "v2")
						.leaseTtlSeconds(300));
			assertThat(reply.status()).as(reply.body()).isEqualTo(201);
		}
		Api.Reply set = api.patch("/v1/services/" + service,
				"{\"maxUnroutable\":\"100%\",\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");
		assertThat(set.status()).as(set.body()).isEqualTo(200);
	}

	@Test
	void theZoneTagAnswersTheZonesViewAndLeavesOutWhatTheZoneSendsNothing() {
		for (String path : PATHS) {
			assertThat(weights(path, "?tag=ballast.zone=za")).as(path)
				.isEqualTo(Map.of(id("a1"), 100, id("a2"), 100, id("a3"), 100));
		}
		maintenance("a2");
		maintenance("a3");

		for (String path : PATHS) {
			assertThat(weights(path, "?tag=ballast.zone=za")).as(path)
				.isEqualTo(Map.of(id("a1"), 8000, id("b1"), 667, id("b2"), 667, id("b3"), 666));
			assertThat(weights(path, "?tag=BALLAST.ZONE=zb")).as("compared without case, as tags are: " + path)
				.isEqualTo(Map.of(id("b1"), 100, id("b2"), 100, id("b3"), 100));
			assertThat(weights(path, "")).as(path)
				.isEqualTo(Map.of(id("a1"), 100, id("b1"), 100, id("b2"), 100, id("b3"), 100));
			// The zone's view of the whole service, then the tags every instance must
			// carry.
			assertThat(weights(path, "?tag=v2&tag=ballast.zone=za")).as(path)
				.isEqualTo(Map.of(id("a1"), 8000, id("b1"), 667, id("b2"), 667));
			assertThat(weights(path, "?tag=ballast.zone=za&tag=ballast.zone=za&passing")).as(path)
				.containsEntry(id("a1"), 8000);
			// A zone no instance is in gets the flat view.
			assertThat(weights(path, "?tag=ballast.zone=elsewhere")).as(path).isEqualTo(weights(path, ""));
		}
		JsonNode entry = consul.get("/v1/health/service/%s?tag=ballast.zone=za".formatted(service)).json().get(0);
		assertThat(entry.get("Service").get("Meta").get("weight").stringValue()).isEqualTo("8000");
		assertThat(entry.get("Service").get("Weights").get("Passing").intValue()).isEqualTo(8000);
	}

	@Test
	void aBlockingQueryWithTheZoneTagIsAnsweredWithTheZonesViewAfterTheChange() throws Exception {
		Consul.Answer first = consul.get("/v1/health/service/%s?tag=ballast.zone=za".formatted(service));
		long index = first.index();
		CompletableFuture<Consul.Answer> waiting = CompletableFuture.supplyAsync(() -> consul
			.get("/v1/health/service/%s?tag=ballast.zone=za&index=%d&wait=20s".formatted(service, index)));
		Thread.sleep(300);
		maintenance("a2");
		maintenance("a3");
		Consul.Answer woken = waiting.get();
		assertThat(woken.index()).isGreaterThan(index);
		// Woken by the first change or the second: either way the zone's view of it. With
		// one instance out, zone za lacks 1 - 1.4 * 200 / 300 = 6.66% and spills that.
		assertThat(woken.weights()).isIn(
				Map.of(id("a1"), 4667, id("a3"), 4667, id("b1"), 222, id("b2"), 222, id("b3"), 222),
				Map.of(id("a1"), 8000, id("b1"), 667, id("b2"), 667, id("b3"), 666));
	}

	@Test
	void aZoneTagThatNamesNoZoneOrTwoZonesIsRefusedNamingTag() {
		for (String tags : List.of("ballast.zone=", "ballast.zone=a%00b", "ballast.zone=" + "z".repeat(64),
				"ballast.zone=a%20b", "ballast.zone=%C3%A9", "ballast.zone=za&tag=ballast.zone=zb")) {
			for (String path : PATHS) {
				Consul.Answer answer = consul.get(path + service + "?tag=" + tags);
				assertThat(answer.status()).as(path + tags + " → " + answer.body()).isEqualTo(400);
				assertThat(answer.body()).as(path + tags).startsWith("Invalid tag: ");
			}
		}
		// The message names what came, as a client must fix it.
		assertThat(consul
			.get("/v1/health/service/%s?tag=%s".formatted(service,
					URLEncoder.encode("ballast.zone=a b", StandardCharsets.UTF_8)))
			.body()).contains("\"ballast.zone=a b\"");
	}

	@Test
	void noInstanceMayCarryATagUnderBallastThroughEitherDoor() {
		Consul.Answer refused = consul.put("/v1/agent/service/register",
				definition("c1", "30s", ",\"Tags\":[\"v1\",\"Ballast.Zone=za\"]"));
		assertThat(refused.status()).as(refused.body()).isEqualTo(400);
		assertThat(refused.body()).contains("Tags[1]", "reserved");
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("c1"))).status()).isEqualTo(404);

		Api.Reply own = Api.unchecked(port)
			.put("/v1/services/%s/instances/%s".formatted(service, id("c1")),
					Registration.at("10.0.0.9", 80).tags("ballast.zone=za"));
		assertThat(own.status()).as(own.body()).isEqualTo(422);
		assertThat(own.json().path("errors").path(0).path("pointer").asString()).isEqualTo("/tags/0");
		assertThat(api.get("/v1/services/%s/instances/%s".formatted(service, id("c1"))).status()).isEqualTo(404);
	}

	private Map<String, Integer> weights(String path, String query) {
		Consul.Answer answer = consul.get(path + service + query);
		assertThat(answer.status()).as(answer.body()).isEqualTo(200);
		Map<String, Integer> weights = new LinkedHashMap<>();
		answer.json().forEach(entry -> {
			JsonNode instance = entry.has("Service") ? entry.get("Service") : entry;
			String id = (entry.has("Service") ? instance.get("ID") : entry.get("ServiceID")).stringValue();
			JsonNode passing = (entry.has("Service") ? instance.get("Weights") : entry.get("ServiceWeights"))
				.get("Passing");
			weights.put(id, passing.intValue());
		});
		return weights;
	}

	private void maintenance(String name) {
		Api.Reply reply = api.send("POST", "/v1/services/%s/instances/%s/maintenance".formatted(service, id(name)),
				"{\"reason\":\"disk\"}", null);
		assertThat(reply.status()).as(reply.body()).isEqualTo(202);
	}

}
