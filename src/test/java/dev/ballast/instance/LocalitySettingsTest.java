package dev.ballast.instance;

import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-service setting {@code locality}: edited, validated, stored, shown, audited.
 */
@RegistryTest
class LocalitySettingsTest {

	@LocalServerPort
	int port;

	Api api;

	String service;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("locality");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("10.0.0.1", 80));
	}

	@Test
	void setsMergesAndTurnsOffTheLocalityPolicy() {
		assertThat(api.get("/v1/services/" + service).json().has("locality")).isFalse();

		Api.Reply set = patch("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");
		assertThat(set.status()).as(set.body()).isEqualTo(200);
		assertThat(set.json().get("locality").get("mode").asString()).isEqualTo("PREFER_LOCAL");
		assertThat(set.json().get("locality").get("maxCrossZonePercent").intValue()).isEqualTo(20);

		Api.Reply merged = patch("{\"locality\":{\"maxCrossZonePercent\":35}}");
		JsonNode shown = api.get("/v1/services/" + service).json();
		assertThat(merged.status()).isEqualTo(200);
		assertThat(shown.get("locality").get("mode").asString()).isEqualTo("PREFER_LOCAL");
		assertThat(shown.get("locality").get("maxCrossZonePercent").intValue()).isEqualTo(35);

		assertThat(patch("{\"locality\":null}").status()).isEqualTo(200);
		assertThat(api.get("/v1/services/" + service).json().has("locality")).isFalse();
	}

	@Test
	void refusesABadPolicyNamingItsFieldAndWritesNothing() {
		record Refused(String patch, String pointer) {
		}
		List<Refused> cases = List.of(
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\"}}", "/locality/maxCrossZonePercent"),
				new Refused("{\"locality\":{\"maxCrossZonePercent\":20}}", "/locality/mode"),
				new Refused("{\"locality\":{\"mode\":\"NEAREST\",\"maxCrossZonePercent\":20}}", "/locality/mode"),
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":101}}",
						"/locality/maxCrossZonePercent"),
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":-1}}",
						"/locality/maxCrossZonePercent"),
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":\"20\"}}",
						"/locality/maxCrossZonePercent"),
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20.5}}",
						"/locality/maxCrossZonePercent"),
				new Refused("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20,\"near\":1}}",
						"/locality/near"),
				new Refused("{\"locality\":\"PREFER_LOCAL\"}", "/locality"),
				new Refused("{\"locality\":[]}", "/locality"));
		for (Refused refused : cases) {
			Api.Reply reply = patch(refused.patch());
			assertThat(reply.status()).as(refused.patch() + " -> " + reply.body()).isEqualTo(422);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(refused.patch())
				.isEqualTo(refused.pointer());
		}
		JsonNode shown = api.get("/v1/services/" + service).json();
		assertThat(shown.get("revision").longValue()).isEqualTo(1);
		assertThat(shown.has("locality")).isFalse();
		assertThat(events("service.edit")).isEmpty();
	}

	@Test
	void auditsAnEditOfThePolicyWithBeforeAndAfter() {
		patch("{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}");

		List<JsonNode> edits = events("service.edit");
		assertThat(edits).hasSize(1);
		assertThat(edits.getFirst().get("before").has("locality")).isFalse();
		assertThat(edits.getFirst().get("after").get("locality").get("maxCrossZonePercent").intValue()).isEqualTo(20);
	}

	private Api.Reply patch(String json) {
		return api.patch("/v1/services/" + service, json);
	}

	private List<JsonNode> events(String action) {
		Api.Reply reply = api.get("/v1/audit?limit=1000&service=" + service);
		assertThat(reply.status()).as(reply.body()).isEqualTo(200);
		return reply.json().get("events").valueStream().filter(e -> e.get("action").asString().equals(action)).toList();
	}

}
