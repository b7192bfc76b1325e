package dev.ballast.consul;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Consul;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Consul blocking query on a service that is not registered yet waits, and is answered
 * as soon as the service appears, as Consul answers it: a client that starts before its
 * service need not poll.
 */
@RegistryTest
class ConsulUnknownServiceTest extends ConsulFixture {

	ConsulUnknownServiceTest() {
		super("cunk");
	}

	@Test
	void aHealthQueryOnAServiceNotRegisteredYetWaitsThenAnswersWithIt() throws Exception {
		Consul.Answer first = consul.get("/v1/health/service/" + service);
		assertThat(first.json().size()).isZero();
		assertThat(first.index()).isEqualTo(1);

		long started = System.nanoTime();
		CompletableFuture<Consul.Answer> waiting = CompletableFuture
			.supplyAsync(() -> consul.get("/v1/health/service/%s?index=%d&wait=20s".formatted(service, first.index())));
		Thread.sleep(300);
		assertThat(waiting).as("nothing registered yet").isNotDone();
		register("a", "30s", "");

		Consul.Answer answer = waiting.get(5, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(answer.index()).isEqualTo(2);
		assertThat(answer.json().size()).isEqualTo(1);
		assertThat(answer.json().get(0).get("Service").get("ID").asString()).isEqualTo(id("a"));
	}

	@Test
	void aCatalogQueryOnAServiceThatNeverAppearsAnswersEmptyAfterItsWait() {
		long started = System.nanoTime();
		Consul.Answer answer = consul.get("/v1/catalog/service/%s?index=1&wait=700ms".formatted(service));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(700));
		assertThat(answer.status()).isEqualTo(200);
		assertThat(answer.index()).isEqualTo(1);
		assertThat(answer.json().size()).isZero();
	}

}
