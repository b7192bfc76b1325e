package dev.ballast.xds;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every ADS stream counts against its node id's cap, and against its token's cap on
 * streams, which SSE streams share: one client cannot hold every stream the node has, by
 * either protocol. Small caps here: two streams per node id, three per token.
 */
@RegistryTest
@TestPropertySource(properties = { "ballast.xds.max-streams-per-node-id=2", "ballast.watch.max-streams-per-token=3" })
class AdsCapsTest {

	static final Duration SOON = Duration.ofSeconds(15);

	@LocalServerPort
	int port;

	@Autowired
	AdsServer server;

	@Test
	void aNodeIdHoldsAtMostItsCapOfStreams() throws Exception {
		String service = service();
		String token = token();
		List<AdsClient> held = new ArrayList<>();
		try {
			for (int i = 0; i < 2; i++) {
				held.add(opened("twin", token, service));
			}
			try (AdsClient third = AdsClient.open(server.port(), "twin", null, token)) {
				third.ask(Resources.ENDPOINTS, "", "", service);
				Status status = third.ended(SOON);
				assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
				assertThat(status.getDescription()).contains("max-streams-per-node-id");
			}
			held.removeFirst().close();
			// The closed stream's place comes back once the server has seen it go.
			await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.untilAsserted(() -> held.add(opened("twin", token, service, Duration.ofSeconds(2))));
		}
		finally {
			held.forEach(AdsClient::close);
		}
	}

	@Test
	void aTokensStreamsAreCountedAcrossAdsAndSse() throws Exception {
		String service = service();
		String token = token();
		List<AdsClient> held = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				held.add(opened("node-" + i, token, service));
			}
			try (AdsClient fourth = AdsClient.open(server.port(), "node-3", null, token)) {
				fourth.ask(Resources.ENDPOINTS, "", "", service);
				Status status = fourth.ended(SOON);
				assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
				assertThat(status.getDescription()).contains("this token holds its maximum of 3 open streams");
			}
			assertThat(Api.unchecked(port).as(token).get("/v1/services/%s/watch".formatted(service)).status())
				.as("an SSE stream of the same token is refused too")
				.isEqualTo(503);
		}
		finally {
			held.forEach(AdsClient::close);
		}
	}

	/** A stream that was answered: it holds its places. */
	private AdsClient opened(String nodeId, String token, String service) throws Exception {
		return opened(nodeId, token, service, SOON);
	}

	private AdsClient opened(String nodeId, String token, String service, Duration within) throws Exception {
		AdsClient client = AdsClient.open(server.port(), nodeId, null, token);
		try {
			client.ask(Resources.ENDPOINTS, "", "", service);
			assertThat(AdsProtocolTest.names(client.next(within))).containsExactly(service);
			return client;
		}
		catch (AssertionError | RuntimeException ex) {
			client.close();
			throw ex;
		}
	}

	private String service() {
		String service = Names.service("caps");
		Api.on(port).put("/v1/services/%s/instances/a".formatted(service), Registration.at("10.6.0.1", 7001));
		return service;
	}

	private String token() {
		return Api.on(port)
			.send("POST", "/v1/tokens", "{\"name\":\"capped\",\"role\":\"reader\"}", null)
			.json()
			.get("token")
			.asString();
	}

}
