package dev.ballast.watch;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.registry.ServiceName;
import dev.ballast.support.Api;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.EventStream;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Watching a service that is not registered yet, as a balancer that starts before its
 * service does: an empty snapshot and a wait, like Consul, instead of a 404.
 */
@RegistryTest
class UnknownServiceWatchTest {

	static final Duration SOON = Duration.ofSeconds(5);

	@LocalServerPort
	int port;

	@Autowired
	AppliedServices applied;

	@Test
	void aStreamOfAServiceNotRegisteredYetStartsEmptyAndReceivesItsRegistration() {
		Api api = Api.on(port);
		String service = Names.service("later");
		try (EventStream stream = EventStream.open(port, "/v1/services/%s/watch".formatted(service), null)) {
			Event snapshot = stream.nextEvent(SOON);
			assertThat(snapshot.name()).isEqualTo("snapshot");
			assertThat(snapshot.id()).isEqualTo("0");
			assertThat(snapshot.json().get("instances").size()).isZero();

			api.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 80));

			Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.id()).isEqualTo("1");
			assertThat(upsert.json().get("id").asString()).isEqualTo("a");
		}
	}

	@Test
	void oneUnknownServiceNoLongerFailsAMultiplexedStream() {
		Api api = Api.on(port);
		String known = Names.service("mux-known");
		String later = Names.service("mux-later");
		api.put("/v1/services/%s/instances/x".formatted(known), Registration.at("h", 80));
		try (EventStream stream = EventStream.open(port, "/v1/watch?service=%s&service=%s".formatted(known, later),
				null)) {
			Event first = stream.nextEvent(SOON);
			Event second = stream.nextEvent(SOON);
			assertThat(first.json().get("service").asString()).isEqualTo(known);
			assertThat(first.json().get("instances").size()).isEqualTo(1);
			assertThat(second.json().get("service").asString()).isEqualTo(later);
			assertThat(second.json().get("instances").size()).isZero();

			api.put("/v1/services/%s/instances/y".formatted(later), Registration.at("h", 81));

			Event upsert = stream.nextEvent(SOON);
			assertThat(upsert.name()).isEqualTo("upsert");
			assertThat(upsert.json().get("service").asString()).isEqualTo(later);
			assertThat(upsert.id()).isEqualTo(known + ":1," + later + ":1");
		}
	}

	@Test
	void aBlockingQueryOnAServiceNotRegisteredYetReturnsWhenItAppears() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("blocklater");
		String instances = "/v1/services/%s/instances".formatted(service);
		assertThat(api.get(instances).status()).as("a plain read of it stays a 404").isEqualTo(404);

		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get(instances + "?index=0&wait=20s"));
		Thread.sleep(300);
		assertThat(waiting).as("nothing registered yet").isNotDone();
		api.put(instances + "/a", Registration.at("h", 80));

		Api.Reply answer = waiting.get(5, TimeUnit.SECONDS);
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("X-Ballast-Index")).hasValue("1");
		assertThat(answer.json().get("instances").get(0).get("id").asString()).isEqualTo("a");
	}

	@Test
	void aBlockingQueryOnAServiceThatNeverAppearsAnswersEmptyAfterItsWait() {
		Api api = Api.on(port);
		Api.Reply answer = api.get("/v1/services/%s/instances?index=0&wait=500ms".formatted(Names.service("never")));
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.header("X-Ballast-Index")).hasValue("0");
		assertThat(answer.json().get("instances").size()).isZero();
	}

	/**
	 * Made-up names cost the node only while someone waits for them (within the caps on
	 * streams and queries), not for the idle timeout (2 minutes) a registered service is
	 * kept followed.
	 */
	@Test
	void whatAnUnknownNameHoldsIsForgottenOnceNobodyWaitsForIt() {
		Api api = Api.on(port);
		String unknown = Names.service("madeup");
		String known = Names.service("kept");
		api.put("/v1/services/%s/instances/a".formatted(known), Registration.at("h", 80));
		api.get("/v1/services/%s/instances?index=1&wait=300ms".formatted(known));
		CompletableFuture<Api.Reply> waiting = CompletableFuture
			.supplyAsync(() -> api.get("/v1/services/%s/instances?index=0&wait=1s".formatted(unknown)));
		Awaitility.await()
			.atMost(SOON)
			.untilAsserted(
					() -> assertThat(applied.applied(ServiceName.of(unknown))).as("while waited for").isPresent());
		assertThat(waiting.join().status()).isEqualTo(200);
		Awaitility.await()
			.atMost(SOON)
			.untilAsserted(() -> assertThat(applied.applied(ServiceName.of(unknown))).isEmpty());
		assertThat(applied.applied(ServiceName.of(known))).as("followed on for the idle timeout").isPresent();
	}

	@Test
	void namesMustStillBeServiceNames() {
		Api api = Api.on(port);
		Api.Reply many = api.get("/v1/watch?service=" + Names.service("ok") + "&service=Not_Valid");
		assertThat(many.status()).isEqualTo(400);
		assertThat(many.json().get("errors").get(0).get("pointer").asString()).isEqualTo("#service");
		assertThat(api.get("/v1/services/Not_Valid/watch").status()).isEqualTo(422);
		assertThat(api.get("/v1/services/Not_Valid/instances?index=0&wait=1s").status()).isEqualTo(422);
	}

}
