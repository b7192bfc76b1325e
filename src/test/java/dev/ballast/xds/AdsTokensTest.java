package dev.ballast.xds;

import java.time.Duration;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tokens on the ADS stream: the REST API's tokens and scopes, from the node's metadata or
 * the call's authorization metadata; nothing without one, nothing of a service the token
 * may not read, and a stream whose token is deleted ends at once.
 */
@RegistryTest
class AdsTokensTest {

	static final Duration SOON = Duration.ofSeconds(15);

	@LocalServerPort
	int port;

	@Autowired
	AdsServer server;

	Api admin;

	String service;

	@BeforeEach
	void setUp() {
		admin = Api.on(port);
		service = Names.service("tokens");
		admin.put("/v1/services/%s/instances/a".formatted(service), Registration.at("10.3.0.1", 7001));
	}

	@Test
	void aStreamWithoutATokenOrWithAnUnknownOneGetsNothing() throws Exception {
		double streamsBefore = openStreams();
		for (AdsClient client : new AdsClient[] { AdsClient.open(server.port(), "anonymous", null, null),
				AdsClient.open(server.port(), "guesser", null, "blst_nothing"),
				AdsClient.withHeader(server.port(), "malformed", "Basic Zm9vOmJhcg=="),
				AdsClient.withHeader(server.port(), "unknown", "Bearer blst_nothing") }) {
			try (client) {
				client.ask(Resources.LISTENER, "", "", service);
				assertThat(client.ended(SOON).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
				assertThat(client.poll(Duration.ZERO)).isNull();
			}
		}
		await().atMost(SOON)
			.untilAsserted(() -> assertThat(openStreams()).as("refused streams are not held").isEqualTo(streamsBefore));
	}

	private double openStreams() {
		return Api.unchecked(port)
			.get("/actuator/prometheus")
			.body()
			.lines()
			.filter(line -> line.startsWith("ballast_xds_streams "))
			.mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
			.sum();
	}

	@Test
	void theTokenMayComeInTheCallsAuthorizationMetadata() throws Exception {
		try (AdsClient client = AdsClient.withHeader(server.port(), "envoy-1", Admin.HEADER)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			assertThat(AdsProtocolTest.names(client.next(SOON))).containsExactly(service);
		}
	}

	@Test
	void aReaderScopedToAnotherServiceIsRefusedItAsOverRest() throws Exception {
		String elsewhere = token("{\"name\":\"elsewhere\",\"role\":\"reader\",\"services\":[\"billing-*\"]}");
		String here = token("{\"name\":\"here\",\"role\":\"reader\",\"services\":[\"%s\"]}".formatted(service));
		try (AdsClient client = AdsClient.open(server.port(), "scoped-out", null, elsewhere)) {
			client.ask(Resources.LISTENER, "", "", service);
			Status status = client.ended(SOON);
			assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
			assertThat(status.getDescription()).contains("may not read service " + service).contains("billing-*");
			assertThat(client.poll(Duration.ZERO)).isNull();
		}
		assertThat(Api.unchecked(port).as(elsewhere).get("/v1/services/%s/instances".formatted(service)).status())
			.isEqualTo(403);
		try (AdsClient client = AdsClient.open(server.port(), "scoped-in", null, here)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			assertThat(AdsProtocolTest.names(client.next(SOON))).containsExactly(service);
			client.ask(Resources.LISTENER, "", "", service, "billing-eu");
			assertThat(client.ended(SOON).getCode()).as("one name out of scope ends the stream")
				.isEqualTo(Status.Code.PERMISSION_DENIED);
		}
		assertThat(Api.unchecked(port).as(here).get("/v1/services/%s/instances".formatted(service)).status())
			.isEqualTo(200);
		assertThat(Api.unchecked(port).as(here).get("/v1/services").status())
			.as("a scoped reader reads no list across services")
			.isEqualTo(403);
	}

	@Test
	void aStreamEndsWhenItsTokenIsDeleted() throws Exception {
		Api.Reply created = admin.send("POST", "/v1/tokens", "{\"name\":\"short-lived\",\"role\":\"reader\"}", null);
		String token = created.json().get("token").asString();
		try (AdsClient client = AdsClient.open(server.port(), "revoked", null, token)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			client.next(SOON);
			admin.delete("/v1/tokens/" + created.json().get("id").asString());
			assertThat(client.ended(SOON).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
		}
	}

	@Test
	void aZoneNoInstanceCouldHaveIsRefused() throws Exception {
		try (AdsClient client = AdsClient.open(server.port(), "zoned", "no zone/here", Admin.TOKEN)) {
			client.ask(Resources.ENDPOINTS, "", "", service);
			Status status = client.ended(SOON);
			assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
			assertThat(status.getDescription()).contains("node.locality.zone");
		}
	}

	private String token(String json) {
		JsonNode created = admin.send("POST", "/v1/tokens", json, null).json();
		return created.get("token").asString();
	}

}
