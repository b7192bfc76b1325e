package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AcknowledgementsTest {

	private static final Duration PATIENCE = Duration.ofSeconds(10);

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	@AfterEach
	void stopScheduler() {
		scheduler.shutdownNow();
	}

	@Test
	void sendsTheLatestRevisionOnceTheOneInFlightIsDone() {
		List<Sent> sent = new CopyOnWriteArrayList<>();
		Acknowledgements acks = new Acknowledgements((service, revision) -> {
			Sent call = new Sent(service, revision, System.nanoTime(), new CompletableFuture<>());
			sent.add(call);
			return call.answer;
		}, scheduler, Duration.ofMillis(1));

		acks.applied("payments", 42);
		await().atMost(PATIENCE).until(() -> sent.size() == 1);
		for (long revision = 43; revision <= 50; revision++) {
			acks.applied("payments", revision);
		}
		sent.get(0).answer.complete(null);

		await().atMost(PATIENCE).until(() -> sent.size() == 2);
		assertThat(sent).extracting(Sent::revision).containsExactly(42L, 50L);
	}

	@Test
	void keepsAtMostOneAcknowledgementInFlightPerService() {
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger mostInFlight = new AtomicInteger();
		List<Long> acknowledged = new CopyOnWriteArrayList<>();
		ScheduledExecutorService registry = Executors.newSingleThreadScheduledExecutor();
		Acknowledgements acks = new Acknowledgements((service, revision) -> {
			mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
			CompletableFuture<Void> answer = new CompletableFuture<>();
			registry.schedule(() -> {
				inFlight.decrementAndGet();
				acknowledged.add(revision);
				answer.complete(null);
			}, 3, TimeUnit.MILLISECONDS);
			return answer;
		}, scheduler, Duration.ofMillis(1));

		try {
			for (long revision = 1; revision <= 300; revision++) {
				acks.applied("payments", revision);
				if (revision % 30 == 0) {
					long reached = revision;
					await().atMost(PATIENCE).until(() -> acknowledged.contains(reached));
				}
			}
		}
		finally {
			registry.shutdown();
		}

		assertThat(mostInFlight).hasValue(1);
		assertThat(acknowledged).hasSizeLessThan(300).last().isEqualTo(300L);
	}

	@Test
	void neverStartsTwoAcknowledgementsOfAServiceWithinTheInterval() {
		Duration interval = Duration.ofMillis(100);
		List<Sent> sent = new CopyOnWriteArrayList<>();
		Acknowledgements acks = new Acknowledgements((service, revision) -> {
			sent.add(new Sent(service, revision, System.nanoTime(), null));
			return CompletableFuture.completedFuture(null);
		}, scheduler, interval);

		for (long revision = 1; revision <= 4; revision++) {
			acks.applied("payments", revision);
			long reached = revision;
			await().atMost(PATIENCE).until(() -> sent.get(sent.size() - 1).revision() == reached);
		}

		for (int i = 1; i < sent.size(); i++) {
			assertThat(sent.get(i).atNanos() - sent.get(i - 1).atNanos()).isGreaterThanOrEqualTo(interval.toNanos());
		}
	}

	@Test
	void retriesAFailedAcknowledgementUntilAccepted() {
		List<Sent> sent = new CopyOnWriteArrayList<>();
		Acknowledgements acks = new Acknowledgements((service, revision) -> {
			sent.add(new Sent(service, revision, System.nanoTime(), null));
			return switch (sent.size()) {
				case 1 -> CompletableFuture.failedFuture(new IllegalStateException("the registry answered 503"));
				case 2 -> throw new IllegalStateException("no connection");
				default -> CompletableFuture.completedFuture(null);
			};
		}, scheduler, Duration.ofMillis(10));

		acks.applied("payments", 42);

		await().atMost(PATIENCE).until(() -> sent.size() == 3);
		assertThat(sent).extracting(Sent::revision).containsExactly(42L, 42L, 42L);
	}

	@Test
	void acknowledgesEachServiceOnItsOwn() {
		List<Sent> sent = new CopyOnWriteArrayList<>();
		Acknowledgements acks = new Acknowledgements((service, revision) -> {
			sent.add(new Sent(service, revision, System.nanoTime(), null));
			return new CompletableFuture<>();
		}, scheduler, Duration.ofMillis(1));

		acks.applied("payments", 42);
		acks.applied("orders", 17);

		await().atMost(PATIENCE).until(() -> sent.size() == 2);
		assertThat(sent).extracting(Sent::service, Sent::revision)
			.containsExactlyInAnyOrder(tuple("payments", 42L), tuple("orders", 17L));
	}

	private record Sent(String service, long revision, long atNanos, CompletableFuture<Void> answer) {
	}

}
