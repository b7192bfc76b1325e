package dev.ballast.instance;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write the database cannot serve in time is a 503 with Retry-After, never a 500 or a
 * hang.
 */
@RegistryTest
class DatabaseUnavailableTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcClient jdbc;

	@Autowired
	TransactionTemplate transactions;

	@Test
	void aWriteBlockedPastTheLockTimeoutIs503WithRetryAfterAndWritesNothing() throws Exception {
		Api api = Api.on(port);
		String service = Names.service("busy");
		String path = "/v1/services/%s/instances/a".formatted(service);
		api.put(path, Registration.at("h", 1).weight(1));
		CountDownLatch locked = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Thread holder = Thread.ofVirtual().start(() -> transactions.executeWithoutResult(status -> {
			jdbc.sql("SELECT name FROM service WHERE name = ? FOR UPDATE").param(service).query(String.class).single();
			locked.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}));
		assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();

		long started = System.nanoTime();
		Api.Reply reply = api.put(path, Registration.at("h", 1).weight(2));
		long tookMillis = (System.nanoTime() - started) / 1_000_000;
		release.countDown();
		holder.join(10_000);

		assertThat(reply.status()).isEqualTo(503);
		assertThat(reply.header("Retry-After"))
			.hasValueSatisfying(v -> assertThat(Integer.parseInt(v)).isBetween(1, 3));
		assertThat(tookMillis).as("bounded by lock_timeout (3 s)").isLessThan(10_000);
		assertThat(api.get(path).json().get("weight").intValue()).isEqualTo(1);
	}

}
