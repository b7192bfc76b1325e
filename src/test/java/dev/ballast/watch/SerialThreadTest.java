package dev.ballast.watch;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tasks run one at a time and in the order given, whether the serial thread runs them or
 * the thread that gives one while it is idle.
 */
class SerialThreadTest {

	private final SerialThread serial = new SerialThread("serial-test");

	@AfterEach
	void stop() {
		serial.stop();
	}

	@Test
	void anIdleThreadLetsTheGiverRunTheTaskAtOnce() {
		AtomicReference<Thread> ranOn = new AtomicReference<>();
		serial.executeHereIfIdle(() -> ranOn.set(Thread.currentThread()), () -> true);
		assertThat(ranOn.get()).isSameAs(Thread.currentThread());
	}

	@Test
	void aTaskThatWouldCostTheGiverTooMuchRunsOnTheThread() {
		AtomicReference<Thread> ranOn = new AtomicReference<>();
		AtomicReference<Boolean> askedUnderTheTurn = new AtomicReference<>();
		serial.executeHereIfIdle(() -> ranOn.set(Thread.currentThread()), () -> {
			askedUnderTheTurn.set(true);
			return false;
		});
		await().atMost(5, TimeUnit.SECONDS).until(() -> ranOn.get() != null);
		assertThat(askedUnderTheTurn.get()).isTrue();
		assertThat(ranOn.get().getName()).isEqualTo("serial-test");
	}

	@Test
	void aTaskGivenWhileAnotherRunsWaitsForItAndRunsOnTheThread() throws InterruptedException {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> order = Collections.synchronizedList(new ArrayList<>());
		AtomicReference<Thread> secondRanOn = new AtomicReference<>();
		serial.execute(() -> {
			running.countDown();
			waitFor(release);
			order.add("first");
		});
		assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
		serial.executeHereIfIdle(() -> {
			secondRanOn.set(Thread.currentThread());
			order.add("second");
		}, () -> true);
		// It was queued, not run here: the first still holds the turn.
		assertThat(order).isEmpty();
		release.countDown();
		await().atMost(5, TimeUnit.SECONDS).until(() -> order.size() == 2);
		assertThat(order).containsExactly("first", "second");
		assertThat(secondRanOn.get()).isNotSameAs(Thread.currentThread());
		assertThat(secondRanOn.get().getName()).isEqualTo("serial-test");
	}

	@Test
	void aTaskGivenByARunningTaskRunsAfterIt() {
		List<String> order = Collections.synchronizedList(new ArrayList<>());
		serial.executeHereIfIdle(() -> {
			serial.executeHereIfIdle(() -> order.add("inner"), () -> true);
			order.add("outer");
		}, () -> true);
		await().atMost(5, TimeUnit.SECONDS).until(() -> order.size() == 2);
		assertThat(order).containsExactly("outer", "inner");
	}

	@Test
	void givenFromManyThreadsEveryTaskRunsOnceAndOneAtATime() throws InterruptedException {
		int givers = 4;
		int each = 2_000;
		int[] counter = { 0 };
		List<Integer> perGiverLast = Collections.synchronizedList(new ArrayList<>());
		int[][] seen = new int[givers][1];
		boolean[] outOfOrder = { false };
		List<Thread> threads = new ArrayList<>();
		for (int g = 0; g < givers; g++) {
			int giver = g;
			threads.add(Thread.ofPlatform().start(() -> {
				for (int i = 1; i <= each; i++) {
					int task = i;
					Runnable count = () -> {
						// Unsynchronised on purpose: two tasks at once would lose counts.
						int now = counter[0];
						Thread.onSpinWait();
						counter[0] = now + 1;
						if (seen[giver][0] != task - 1) {
							outOfOrder[0] = true;
						}
						seen[giver][0] = task;
					};
					if (task % 2 == 0) {
						serial.executeHereIfIdle(count, () -> true);
					}
					else {
						serial.execute(count);
					}
				}
				perGiverLast.add(giver);
			}));
		}
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(30));
		}
		AtomicReference<Integer> total = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		serial.execute(() -> {
			total.set(counter[0]);
			done.countDown();
		});
		assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(perGiverLast).hasSize(givers);
		assertThat(total.get()).isEqualTo(givers * each);
		assertThat(outOfOrder[0]).as("a giver's tasks ran out of order").isFalse();
	}

	@Test
	void aStoppedThreadRunsNothingMoreHereOrThere() throws InterruptedException {
		serial.stop();
		List<String> ran = Collections.synchronizedList(new ArrayList<>());
		CountDownLatch refused = new CountDownLatch(1);
		serial.executeHereIfIdle(() -> ran.add("here"), () -> true);
		serial.execute(() -> ran.add("there"), refused::countDown);
		assertThat(refused.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(ran).isEmpty();
	}

	private static void waitFor(CountDownLatch latch) {
		try {
			assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
