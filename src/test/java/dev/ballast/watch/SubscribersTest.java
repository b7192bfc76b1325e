package dev.ballast.watch;

import java.time.Duration;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/** Named subscribers: what was delivered to them and what they acknowledged. */
@RegistryTest
class SubscribersTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Test
	void tracksDeliveryToAStreamSubscriberAndItsAcknowledgements() {
		Api api = Api.on(port);
		String service = Names.service("subs");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80));
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch?subscriber=nginx-1".formatted(service),
				null)) {
			assertThat(stream.nextEvent(Duration.ofSeconds(5)).id()).isEqualTo("1");
			api.patch(a + "?force=true", "{\"weight\":0}");
			assertThat(stream.nextEvent(Duration.ofSeconds(5)).id()).isEqualTo("2");

			JsonNode nginx = subscriber(api, service, "nginx-1");
			assertThat(nginx.get("deliveredRevision").asLong()).isEqualTo(2);
			assertThat(nginx.get("ackedRevision").asLong()).isZero();
			assertThat(nginx.get("lag").asLong()).isEqualTo(2);

			Api.Reply ack = api.send("POST", "/v1/services/%s/subscribers/nginx-1/ack".formatted(service),
					"{\"revision\":2}", null);
			assertThat(ack.status()).isEqualTo(204);
			nginx = subscriber(api, service, "nginx-1");
			assertThat(nginx.get("ackedRevision").asLong()).isEqualTo(2);
			assertThat(nginx.get("lag").asLong()).isZero();

			api.send("POST", "/v1/services/%s/subscribers/nginx-1/ack".formatted(service), "{\"revision\":1}", null);
			assertThat(subscriber(api, service, "nginx-1").get("ackedRevision").asLong())
				.as("acknowledgements only move forward")
				.isEqualTo(2);
		}
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> jdbc.sql("SELECT acked_revision FROM subscriber WHERE service = ? AND name = 'nginx-1'")
				.param(service)
				.query(Long.class)
				.optional()
				.orElse(0L) == 2L);
	}

	@Test
	void aPollingSubscriberAcknowledgesWithItsIndex() {
		Api api = Api.on(port);
		String service = Names.service("poller");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80));
		api.patch(a, "{\"weight\":3}");
		Api.Reply reply = api.get("/v1/services/%s/instances?index=1&wait=1s&subscriber=lua-1".formatted(service));
		assertThat(reply.header("X-Ballast-Index")).hasValue("2");
		JsonNode lua = subscriber(api, service, "lua-1");
		assertThat(lua.get("ackedRevision").asLong()).isEqualTo(1);
		assertThat(lua.get("deliveredRevision").asLong()).isEqualTo(2);

		api.get("/v1/services/%s/instances?index=2&wait=100ms&subscriber=lua-1".formatted(service));
		assertThat(subscriber(api, service, "lua-1").get("ackedRevision").asLong()).isEqualTo(2);
		assertThat(subscriber(api, service, "lua-1").get("lag").asLong()).isZero();
	}

	@Test
	void refusesBadAcknowledgements() {
		Api api = Api.on(port);
		String service = Names.service("badack");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		String path = "/v1/services/%s/subscribers/s1/ack".formatted(service);
		String[][] cases = { { "{\"revision\":2}", "/revision" }, { "{\"revision\":\"1\"}", "/revision" },
				{ "{\"revision\":-1}", "/revision" }, { "{\"revision\":1.5}", "/revision" },
				{ "{\"revision\":1,\"extra\":true}", "/extra" }, { "{}", "/revision" } };
		for (String[] bad : cases) {
			Api.Reply reply = api.send("POST", path, bad[0], null);
			assertThat(reply.status()).as(bad[0]).isEqualTo(422);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(bad[0]).isEqualTo(bad[1]);
		}
		assertThat(api.send("POST", path, "{", null).status()).isEqualTo(400);
		assertThat(api
			.send("POST", "/v1/services/%s/subscribers/s1/ack".formatted(Names.service("ghost")), "{\"revision\":1}",
					null)
			.status()).isEqualTo(404);
		Api.Reply badName = api.send("POST", "/v1/services/%s/subscribers/bad%%20name/ack".formatted(service),
				"{\"revision\":1}", null);
		assertThat(badName.status()).isEqualTo(422);
		assertThat(badName.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#subscriber");
		assertThat(api.get("/v1/services/%s/subscribers".formatted(service)).json().get("subscribers")).isEmpty();
	}

	private static JsonNode subscriber(Api api, String service, String name) {
		JsonNode list = api.get("/v1/services/%s/subscribers".formatted(service)).json();
		for (JsonNode subscriber : list.get("subscribers")) {
			if (subscriber.get("name").asString().equals(name)) {
				return subscriber;
			}
		}
		throw new AssertionError("no subscriber " + name + " in " + list);
	}

}
