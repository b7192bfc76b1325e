package dev.ballast.registry;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Holds {@link GroupCommit}'s committer inside a transaction of its own, so that the
 * writes sent meanwhile queue up and commit as one group once it lets go.
 */
final class HeldCommitter implements AutoCloseable {

	private final GroupCommit groups;

	private final ExecutorService pool;

	private final CountDownLatch release = new CountDownLatch(1);

	private final Future<Object> holder;

	/** Holds the committer, on one of {@code pool}'s threads. */
	HeldCommitter(GroupCommit groups, ExecutorService pool) throws InterruptedException {
		this.groups = groups;
		this.pool = pool;
		CountDownLatch busy = new CountDownLatch(1);
		holder = pool.submit(() -> groups.run(ServiceName.of(Names.service("holder")), null, () -> {
			busy.countDown();
			awaitQuietly(release);
			return null;
		}));
		assertThat(busy.await(30, TimeUnit.SECONDS)).as("the committer is held").isTrue();
	}

	/**
	 * Sends a write and returns once it waits in the queue, the {@code waiting}th there.
	 */
	<T> Future<T> queued(Callable<T> write, int waiting) {
		Future<T> future = pool.submit(write);
		await().atMost(Duration.ofSeconds(30)).until(() -> groups.waiting() >= waiting || future.isDone());
		assertThat(future.isDone()).as("a write queued behind a busy committer was answered").isFalse();
		return future;
	}

	/** Lets the committer go: what queued commits, as one group. */
	void release() throws Exception {
		release.countDown();
		holder.get(30, TimeUnit.SECONDS);
	}

	/** A test that failed before {@link #release()} leaves no committer held. */
	@Override
	public void close() {
		release.countDown();
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
