package dev.ballast.registry;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A registration that ran in a group which has not committed when its commit wait (1 s
 * here) runs out is answered 503 "outcome unknown", never "nothing was written", and it
 * does commit after its answer when its group does; one that had not run yet is dropped
 * and never runs. A write of another service, later in the same group, holds the group
 * open. The short way answers the first case itself: sent the full way again, the write
 * would queue behind its own first attempt and be answered for that second one.
 */
@RegistryTest
@TestPropertySource(properties = "ballast.writes.commit-wait=1s")
class OutcomeUnknownTest {

	private static final String UNKNOWN = "https://ballast.dev/problems/outcome-unknown";

	@LocalServerPort
	int port;

	@Autowired
	GroupCommit groups;

	@Test
	void theShortWaySaysAWriteThatRanMayStillCommitAndItDoes() throws Exception {
		Api api = Api.on(port);
		String path = registered(api, "unknown");
		assertAnsweredUnknownThenCommitted(api, path, () -> api.put(path, Registration.at("h", 1).weight(2)));
	}

	@Test
	void theFullWaySaysSoToo() throws Exception {
		Api api = Api.on(port);
		String path = registered(api, "unknown-full");
		// An idempotency key takes a registration the full way.
		assertAnsweredUnknownThenCommitted(api, path, () -> api.sendWith("PUT", path,
				Registration.at("h", 1).weight(2).json(), Map.of("Idempotency-Key", Names.service("key"))));
	}

	@Test
	void aWriteThatHadNotRunIsDroppedAndNeverRuns() throws Exception {
		Api api = Api.on(port);
		String path = registered(api, "dropped");
		ExecutorService pool = Executors.newCachedThreadPool();
		CountDownLatch release = new CountDownLatch(1);
		try {
			Future<Object> holder = hold(pool, "holder", release);
			Api.Reply reply = pool.submit(() -> api.put(path, Registration.at("h", 1).weight(2)))
				.get(10, TimeUnit.SECONDS);
			assertThat(reply.status()).as(reply.body()).isEqualTo(503);
			assertThat(reply.json().get("type").stringValue())
				.isEqualTo("https://ballast.dev/problems/database-unavailable");
			assertThat(reply.json().get("detail").stringValue()).contains("nothing was written");
			release.countDown();
			assertThat(holder).as("the holder ran and was answered").failsWithin(Duration.ofSeconds(10));
			// Past the holder's group the committer is idle: the dropped write never ran.
			await().during(Duration.ofSeconds(1))
				.atMost(Duration.ofSeconds(5))
				.until(() -> groups.waiting() == 0 && api.get(path).json().get("weight").intValue() == 1);
		}
		finally {
			release.countDown();
			pool.shutdownNow();
		}
	}

	private static String registered(Api api, String prefix) {
		String path = "/v1/services/%s/instances/a".formatted(Names.service(prefix));
		assertThat(api.put(path, Registration.at("h", 1).weight(1)).status()).isEqualTo(201);
		return path;
	}

	/**
	 * Runs a write whose work waits for {@code release} and returns once the committer
	 * runs it, holding its group open.
	 */
	private Future<Object> hold(ExecutorService pool, String prefix, CountDownLatch release)
			throws InterruptedException {
		CountDownLatch running = new CountDownLatch(1);
		Future<Object> write = pool.submit(() -> groups.run(ServiceName.of(Names.service(prefix)), null, () -> {
			running.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return null;
		}));
		assertThat(running.await(10, TimeUnit.SECONDS)).as("the holding write runs").isTrue();
		return write;
	}

	private void assertAnsweredUnknownThenCommitted(Api api, String path, Supplier<Api.Reply> write) throws Exception {
		ExecutorService pool = Executors.newCachedThreadPool();
		CountDownLatch first = new CountDownLatch(1);
		CountDownLatch last = new CountDownLatch(1);
		try {
			// Holds the committer, so that the write and the one after it form one group.
			hold(pool, "first", first);
			Future<Api.Reply> answer = pool.submit(write::get);
			await().atMost(Duration.ofSeconds(5)).until(() -> groups.waiting() == 1);
			// Sorted after the write's service in the group, it keeps the group open.
			pool.submit(() -> groups.run(ServiceName.of(Names.service("zz-last")), null, () -> {
				awaitQuietly(last);
				return null;
			}));
			await().atMost(Duration.ofSeconds(5)).until(() -> groups.waiting() == 2);
			first.countDown();
			Api.Reply reply = answer.get(10, TimeUnit.SECONDS);
			assertThat(reply.status()).as(reply.body()).isEqualTo(503);
			assertThat(reply.contentType()).hasValueSatisfying(type -> assertThat(type).contains("problem+json"));
			assertThat(reply.json().get("type").stringValue()).isEqualTo(UNKNOWN);
			assertThat(reply.json().get("detail").stringValue()).contains("may still commit")
				.doesNotContain("nothing was written");
			assertThat(reply.header("Retry-After"))
				.hasValueSatisfying(seconds -> assertThat(Integer.parseInt(seconds)).isBetween(1, 3));
			assertThat(api.get(path).json().get("weight").intValue()).as("not committed yet").isEqualTo(1);
			last.countDown();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(api.get(path).json().get("weight").intValue()).isEqualTo(2));
		}
		finally {
			first.countDown();
			last.countDown();
			pool.shutdownNow();
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
