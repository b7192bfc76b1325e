package dev.ballast.instance;

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
 * Operator edits: merge patches of instances and service settings, If-Match, NORMALIZE.
 */
@RegistryTest
class OperatorEditsTest {

	@LocalServerPort
	int port;

	Api api;

	String service;

	String instance;

	@BeforeEach
	void setUp() {
		api = Api.on(port);
		service = Names.service("edit");
		instance = "/v1/services/%s/instances/a".formatted(service);
		api.put(instance, Registration.at("10.0.0.1", 80).weight(100).zone("az-1").metadata("v", "1", "team", "x"));
	}

	@Test
	void patchesWeightZoneAndMetadataAsAMergePatch() {
		Api.Reply reply = api.patch(instance, "{\"weight\":40,\"zone\":null,\"metadata\":{\"v\":\"2\",\"team\":null}}");

		assertThat(reply.status()).isEqualTo(200);
		JsonNode edited = reply.json();
		assertThat(edited.get("weight").intValue()).isEqualTo(40);
		assertThat(edited.get("effectiveWeight").intValue()).isEqualTo(40);
		assertThat(edited.has("zone")).isFalse();
		assertThat(edited.get("metadata").properties()).hasSize(1);
		assertThat(edited.get("metadata").get("v").asString()).isEqualTo("2");
		assertThat(edited.get("revision").longValue()).isEqualTo(2);
		assertThat(reply.header("ETag")).hasValue("\"2\"");
	}

	@Test
	void appliesAnEditOnlyWhenIfMatchIsCurrent() {
		Api.Reply stale = api.patch(instance, "{\"weight\":1}", "\"0\"");
		Api.Reply current = api.patch(instance, "{\"weight\":2}", "\"1\"");
		Api.Reply nowStale = api.patch(instance, "{\"weight\":3}", "\"1\"");

		assertThat(stale.status()).isEqualTo(412);
		assertThat(current.status()).isEqualTo(200);
		assertThat(nowStale.status()).isEqualTo(412);
		assertThat(api.get(instance).json().get("weight").intValue()).isEqualTo(2);
	}

	@Test
	void usesTheRevisionAsETag() {
		Api.Reply reply = api.get(instance);

		assertThat(reply.header("ETag")).hasValue("\"" + reply.json().get("revision").longValue() + "\"");
	}

	@Test
	void refusesToRemoveOrStringifyTheWeight() {
		Api.Reply removed = api.patch(instance, "{\"weight\":null}");
		Api.Reply stringWeight = api.patch(instance, "{\"weight\":\"40\"}");
		Api.Reply unknown = api.patch(instance, "{\"port\":81}");

		assertThat(removed.status()).isEqualTo(422);
		assertThat(removed.json().get("errors").get(0).get("detail").asString()).endsWith("got null");
		assertThat(stringWeight.status()).isEqualTo(422);
		assertThat(stringWeight.json().get("errors").get(0).get("pointer").asString()).isEqualTo("/weight");
		assertThat(unknown.status()).isEqualTo(422);
		assertThat(unknown.json().get("errors").get(0).get("pointer").asString()).isEqualTo("/port");
		assertThat(api.get(instance).json().get("revision").longValue()).isEqualTo(1);
	}

	@Test
	void anEditThatChangesNothingSpendsNoRevision() {
		Api.Reply reply = api.patch(instance, "{\"weight\":100}");

		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.json().get("revision").longValue()).isEqualTo(1);
		assertThat(api.get("/v1/services/" + service).json().get("revision").longValue()).isEqualTo(1);
	}

	@Test
	void patchesServiceSettings() {
		Api.Reply reply = api.patch("/v1/services/" + service,
				"{\"defaultWeight\":7,\"leaseTtlSeconds\":60,\"maxUnroutablePercent\":30,\"maxEjectionPercent\":10}");

		assertThat(reply.status()).isEqualTo(200);
		assertThat(reply.json().get("defaultWeight").intValue()).isEqualTo(7);
		assertThat(reply.json().get("leaseTtlSeconds").intValue()).isEqualTo(60);
		assertThat(reply.json().get("maxUnroutablePercent").intValue()).isEqualTo(30);
		assertThat(reply.json().get("maxEjectionPercent").intValue()).isEqualTo(10);
		assertThat(reply.json().get("revision").longValue()).isEqualTo(2);
		JsonNode next = api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 1)).json();
		assertThat(next.get("weight").intValue()).isEqualTo(7);
		assertThat(next.get("leaseTtlSeconds").intValue()).isEqualTo(60);
	}

	@Test
	void refusesBadSettings() {
		assertThat(api.patch("/v1/services/" + service, "{\"weightPolicy\":\"strict\"}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "{\"maxEjectionPercent\":101}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "{\"leaseTtlSeconds\":\"30\"}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "{\"defaultWeight\":null}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "{\"revision\":99}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "{\"colour\":\"red\"}").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + service, "[]").status()).isEqualTo(422);
		assertThat(api.patch("/v1/services/" + Names.service("none"), "{\"defaultWeight\":1}").status()).isEqualTo(404);
		assertThat(api.get("/v1/services/" + service).json().get("revision").longValue()).isEqualTo(1);
	}

	@Test
	void normalizesCanonicalStringsAndIntegralNumbersUnderNormalizeAndSaysSo() {
		api.patch("/v1/services/" + service, "{\"weightPolicy\":\"NORMALIZE\"}");
		double before = normalizations();

		Api.Reply registered = api.put("/v1/services/%s/instances/b".formatted(service),
				"{\"address\":\"h\",\"port\":1,\"weight\":\" 0 \"}");
		Api.Reply patched = api.patch(instance, "{\"weight\":1e2}");
		Api.Reply garbage = api.patch(instance, "{\"weight\":\"0x10\"}");
		Api.Reply outOfRange = api.patch(instance, "{\"weight\":\"10001\"}");

		assertThat(registered.status()).isEqualTo(201);
		assertThat(registered.header("Ballast-Normalized")).hasValue("/weight");
		assertThat(registered.json().get("weight").isInt()).isTrue();
		assertThat(registered.json().get("weight").intValue()).isZero();
		assertThat(patched.header("Ballast-Normalized")).hasValue("/weight");
		assertThat(patched.json().get("weight").intValue()).isEqualTo(100);
		assertThat(garbage.status()).isEqualTo(422);
		assertThat(outOfRange.status()).isEqualTo(422);
		assertThat(normalizations() - before).isEqualTo(2.0);
		assertThat(api.get("/v1/services/%s/instances".formatted(service)).body()).doesNotContain("\"weight\":\"");
	}

	private double normalizations() {
		String metrics = Api.unchecked(port).get("/actuator/prometheus").body();
		return metrics.lines()
			.filter(line -> line.startsWith("ballast_weight_normalizations_total{service=\"" + service + "\""))
			.mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

}
