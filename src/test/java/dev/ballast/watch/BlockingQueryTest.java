package dev.ballast.watch;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** Blocking queries on a service's instances and on one instance. */
@RegistryTest
class BlockingQueryTest {

	@LocalServerPort
	int port;

	@Test
	void returnsAsSoonAsTheRevisionPassesTheIndex() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("block");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80).weight(10));
		Api.Reply first = api.get("/v1/services/%s/instances".formatted(service));
		String index = first.header("X-Ballast-Index").orElseThrow();
		assertThat(index).isEqualTo("1");

		long started = System.nanoTime();
		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get("/v1/services/%s/instances?index=%s&wait=20s".formatted(service, index)));
		Thread.sleep(300);
		assertThat(waiting).as("nothing changed yet").isNotDone();
		api.patch(a + "?force=true", "{\"weight\":0}");
		Api.Reply answer = waiting.get(5, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("X-Ballast-Index")).hasValue("2");
		assertThat(answer.json().get("revision").asLong()).isEqualTo(2);
		assertThat(answer.json().get("instances").get(0).get("weight").isInt()).isTrue();
		assertThat(answer.json().get("instances").get(0).get("effectiveWeight").asInt()).isZero();
	}

	@Test
	void returnsTheUnchangedStateAfterTheWait() {
		Api api = Api.on(port);
		String service = Names.service("timeout");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		long started = System.nanoTime();
		Api.Reply answer = api.get("/v1/services/%s/instances?index=1&wait=700ms".formatted(service));
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("X-Ballast-Index")).hasValue("1");
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(700)).isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void anIndexBehindOrAheadOfTheRevisionIsAnsweredAtOnce() {
		Api api = Api.on(port);
		String service = Names.service("ahead");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 81));
		for (String index : new String[] { "0", "1", "1000" }) {
			long started = System.nanoTime();
			Api.Reply answer = api.get("/v1/services/%s/instances?index=%s&wait=30s".formatted(service, index));
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as(index).isLessThan(Duration.ofSeconds(2));
			assertThat(answer.header("X-Ballast-Index")).hasValue("2");
		}
	}

	@Test
	void refusesBadIndexAndWaitWith400NamingTheParameter() {
		Api api = Api.on(port);
		String service = Names.service("badquery");
		api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));
		String[][] cases = { { "index=-1", "#index" }, { "index=abc", "#index" }, { "index=1.5", "#index" },
				{ "index=1&wait=soon", "#wait" }, { "index=1&wait=-5s", "#wait" }, { "index=1&wait=1h", "#wait" },
				{ "index=99999999999999999999", "#index" } };
		for (String[] bad : cases) {
			Api.Reply reply = api.get("/v1/services/%s/instances?%s".formatted(service, bad[0]));
			assertThat(reply.status()).as(bad[0]).isEqualTo(400);
			assertThat(reply.json().get("errors").get(0).get("pointer").asString()).as(bad[0]).isEqualTo(bad[1]);
		}
	}

	@Test
	void aBlockingQueryOnOneInstanceWaitsForThatInstanceOnly() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("one");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("h", 80));
		Api.Reply got = api.get(a);
		assertThat(got.header("ETag")).hasValue("\"1\"");
		String index = got.header("X-Ballast-Index").orElseThrow();

		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get(a + "?index=%s&wait=20s".formatted(index)));
		api.put("/v1/services/%s/instances/b".formatted(service), Registration.at("h", 81));
		Thread.sleep(300);
		assertThat(waiting).as("another instance's change does not answer it").isNotDone();
		api.patch(a, "{\"weight\":5}");
		Api.Reply answer = waiting.get(5, TimeUnit.SECONDS);
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("ETag")).hasValue("\"3\"");
		assertThat(answer.json().get("weight").asInt()).isEqualTo(5);

		CompletableFuture<Api.Reply> removal = CompletableFuture.supplyAsync(() -> api.get(a + "?index=3&wait=20s"));
		Thread.sleep(200);
		api.delete(a);
		assertThat(removal.get(5, TimeUnit.SECONDS).status()).isEqualTo(404);
	}

}
