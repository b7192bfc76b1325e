package dev.ballast.probe;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sharing of a node's probe slots, with tasks that hold their slot until the test
 * lets them go: a service holds no more than its share, a freed slot goes to the service
 * holding fewest, a probe not started by its expiry is shed and a cancelled one never
 * runs.
 */
class ProbeSlotsTest {

	private static final long LATER = TimeUnit.MINUTES.toNanos(1);

	/** Lets every held task go. */
	private final CountDownLatch done = new CountDownLatch(1);

	private final List<String> started = new CopyOnWriteArrayList<>();

	private final List<String> shed = new CopyOnWriteArrayList<>();

	@AfterEach
	void letGo() {
		done.countDown();
	}

	@Test
	void aServiceHoldsNoMoreThanItsShareAndAnotherServiceStartsAtOnce() {
		ProbeSlots slots = new ProbeSlots(4, 2);
		AtomicInteger hogRunning = new AtomicInteger();
		AtomicInteger hogMost = new AtomicInteger();
		for (int i = 0; i < 6; i++) {
			slots.submit("hog", System.nanoTime() + LATER, new Held("hog-" + i) {

				@Override
				public void run(ProbeSlots.Slot slot) {
					hogMost.accumulateAndGet(hogRunning.incrementAndGet(), Math::max);
					super.run(slot);
					hogRunning.decrementAndGet();
				}

			});
		}
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 2);
		slots.submit("canary", System.nanoTime() + LATER, new Held("canary"));
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.contains("canary"));
		assertThat(hogMost.get()).isEqualTo(2);
		assertThat(slots.running()).isEqualTo(3);
		assertThat(slots.waiting()).isEqualTo(4);
	}

	@Test
	void aFreedSlotGoesToTheServiceHoldingFewest() {
		ProbeSlots slots = new ProbeSlots(2, 2);
		CountDownLatch firstGoes = new CountDownLatch(1);
		slots.submit("hog", System.nanoTime() + LATER, new Held("hog-0", firstGoes));
		slots.submit("hog", System.nanoTime() + LATER, new Held("hog-1"));
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 2);
		slots.submit("hog", System.nanoTime() + LATER, new Held("hog-2"));
		slots.submit("canary", System.nanoTime() + LATER, new Held("canary"));
		firstGoes.countDown();
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 3);
		assertThat(started).as("the hog holds one, the canary none: the canary's turn").endsWith("canary");
	}

	@Test
	void aProbeNotStartedByItsExpiryIsShedAndACancelledOneNeverRuns() throws Exception {
		ProbeSlots slots = new ProbeSlots(1, 1);
		CountDownLatch firstGoes = new CountDownLatch(1);
		slots.submit("a", System.nanoTime() + LATER, new Held("a-0", firstGoes));
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 1);
		slots.submit("b", System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), new Held("b-expiring"));
		ProbeSlots.Ticket cancelled = slots.submit("c", System.nanoTime() + LATER, new Held("c-cancelled"));
		slots.submit("d", System.nanoTime() + LATER, new Held("d"));
		assertThat(cancelled.cancel()).isTrue();
		Thread.sleep(100);
		firstGoes.countDown();
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> started.contains("d"));
		assertThat(shed).containsExactly("b-expiring");
		assertThat(started).containsExactly("a-0", "d");
		assertThat(cancelled.cancel()).as("once").isFalse();
		assertThat(slots.waiting()).isZero();
	}

	/** A task that holds its slot until its latch, or the test's, lets it go. */
	private class Held implements ProbeSlots.Task {

		private final String name;

		private final CountDownLatch goes;

		Held(String name) {
			this(name, done);
		}

		Held(String name, CountDownLatch goes) {
			this.name = name;
			this.goes = goes;
		}

		@Override
		public String name() {
			return name;
		}

		@Override
		public void run(ProbeSlots.Slot slot) {
			started.add(name);
			try {
				goes.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void shed() {
			shed.add(name);
		}

	}

}
