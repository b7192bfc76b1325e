package dev.ballast.web;

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
 * What PostgreSQL cannot store, sent through the REST entrance: text with NUL or a lone
 * surrogate ({@link StorableText}) and timestamps beyond four-digit years
 * ({@link Timestamps}) are refused with a problem that names the field, and nothing is
 * written. Each was a 500 (or, for a lone surrogate, a 201 that stored {@code "?x"}).
 */
@RegistryTest
class BorderInputTest {

	@LocalServerPort
	int port;

	Api api;

	String service;

	@BeforeEach
	void startWithAServiceOfItsOwn() {
		api = Api.on(port);
		service = Names.service("border");
	}

	@Test
	void refusesARegistrationWhoseMetadataHoldsNul() {
		assertRefused(
				api.put(instance("a"), Registration.at("10.0.0.1", 8080).member("metadata", "{\"k\":\"a\\u0000b\"}")),
				422, "/metadata/k");
		assertThat(api.get(instance("a")).status()).isEqualTo(404);
	}

	@Test
	void refusesARegistrationWhoseMetadataHoldsALoneSurrogate() {
		assertRefused(
				api.put(instance("a"), Registration.at("10.0.0.1", 8080).member("metadata", "{\"k\":\"\\ud800x\"}")),
				422, "/metadata/k");
		assertThat(api.get(instance("a")).status()).isEqualTo(404);
	}

	@Test
	void refusesAMetadataKeyHoldingNulByNamingItsObject() {
		assertRefused(
				api.put(instance("a"), Registration.at("10.0.0.1", 8080).member("metadata", "{\"a\\u0000\":\"x\"}")),
				422, "/metadata");
	}

	@Test
	void keepsAValidSurrogatePair() {
		assertThat(api
			.put(instance("a"), Registration.at("10.0.0.1", 8080).member("metadata", "{\"k\":\"\\ud83d\\udca5\"}"))
			.status()).isEqualTo(201);
		assertThat(api.get(instance("a")).json().get("metadata").get("k").asString()).isEqualTo("\ud83d\udca5");
	}

	@Test
	void refusesAMetadataEditHoldingNulAndKeepsTheInstance() {
		registered("a");
		JsonNode before = api.get(instance("a")).json();
		assertRefused(api.patch(instance("a"), "{\"metadata\":{\"k\":\"a\\u0000b\"}}"), 422, "/metadata/k");
		assertThat(api.get(instance("a")).json()).isEqualTo(before);
	}

	@Test
	void refusesAMaintenanceReasonHoldingNul() {
		registered("a");
		registered("b");
		registered("c");
		registered("d");
		assertRefused(api.send("POST", instance("a") + "/maintenance", "{\"reason\":\"a\\u0000b\"}", null), 422,
				"/reason");
		assertThat(api.get(instance("a")).json().get("mode").asString()).isEqualTo("SERVING");
	}

	@Test
	void refusesATokenNameHoldingNul() {
		assertRefused(api.send("POST", "/v1/tokens", "{\"name\":\"a\\u0000b\",\"role\":\"reader\"}", null), 422,
				"/name");
	}

	@Test
	void refusesAWeightEditUntilBeyondWhatTheDatabaseHolds() {
		registered("a");
		Api.Reply refused = api.patch(instance("a"), "{\"weight\":50,\"until\":\"+294277-01-01T00:00:00Z\"}");
		assertRefused(refused, 422, "/until");
		assertThat(refused.json().get("detail").asString()).contains("from 0001-01-01T00:00:00Z to 9999-12-31");
		assertThat(api.get(instance("a")).json().get("weight").asInt()).isEqualTo(100);
	}

	@Test
	void refusesMaintenanceUntilBeyondWhatTheDatabaseHolds() {
		registered("a");
		registered("b");
		registered("c");
		registered("d");
		assertRefused(api.send("POST", instance("a") + "/maintenance",
				"{\"reason\":\"x\",\"until\":\"+294277-01-01T00:00:00Z\"}", null), 422, "/until");
	}

	@Test
	void refusesATokenExpiryBeyondWhatMillisecondsHold() {
		assertRefused(
				api.send("POST", "/v1/tokens",
						"{\"name\":\"far\",\"role\":\"reader\",\"expiresAt\":\"+1000000000-01-01T00:00:00Z\"}", null),
				422, "/expiresAt");
	}

	@Test
	void refusesAnAuditQuerySinceBeforeWhatTheDatabaseHolds() {
		assertRefused(api.get("/v1/audit?since=-4714-11-23T00:00:00Z"), 400, "#since");
	}

	@Test
	void refusesAQueryParameterHoldingNul() {
		registered("a");
		assertRefused(api.get("/v1/services/%s/instances?subscriber=a%%00b".formatted(service)), 400, "#subscriber");
	}

	private void registered(String id) {
		assertThat(api.put(instance(id), Registration.at("10.0.0.1", 8080).weight(100)).status()).isEqualTo(201);
	}

	private String instance(String id) {
		return "/v1/services/%s/instances/%s".formatted(service, id);
	}

	private static void assertRefused(Api.Reply reply, int status, String pointer) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(status);
		assertThat(reply.contentType())
			.hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
		assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(reply.body()).isEqualTo(pointer);
	}

}
