package dev.ballast.instance;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.ballast.support.Names;
import dev.ballast.support.RegistryTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The committer, about to begin a group, waits for writes that request threads have
 * received and not yet handed in ({@link GroupCommit#expect}), at most the company wait,
 * and for nothing else. A committer of its own here, with a company wait long enough to
 * tell waiting from not waiting.
 */
@RegistryTest
class CompanyWaitTest {

	private static final Duration COMPANY_WAIT = Duration.ofSeconds(4);

	private static final Duration HANDED_IN_AFTER = Duration.ofMillis(500);

	@Autowired
	PlatformTransactionManager transactions;

	@Autowired
	WriteBehind behind;

	@Autowired
	JdbcClient jdbc;

	private final ExecutorService pool = Executors.newFixedThreadPool(2);

	private GroupCommit groups;

	@BeforeEach
	void startACommitter() {
		groups = new GroupCommit(transactions, new WriteSettings(64, Duration.ofSeconds(10), COMPANY_WAIT), behind,
				new SimpleMeterRegistry());
		groups.start();
	}

	@AfterEach
	void stopIt() {
		pool.shutdownNow();
		groups.stop();
	}

	@Test
	void anAnnouncedWriteJoinsTheGroupThatBeganBeforeItWasHandedIn() throws Exception {
		CountDownLatch announced = new CountDownLatch(1);
		AtomicLong handedIn = new AtomicLong();
		Future<Long> late = pool.submit(() -> {
			try (GroupCommit.Arrival arrival = groups.expect()) {
				announced.countDown();
				Thread.sleep(HANDED_IN_AFTER);
				handedIn.set(System.nanoTime());
				return transactionId();
			}
		});
		assertThat(announced.await(30, TimeUnit.SECONDS)).isTrue();
		long began = System.nanoTime();

		long first = transactionId();

		long committed = System.nanoTime();
		assertThat(late.get(30, TimeUnit.SECONDS)).as("both committed in one transaction").isEqualTo(first);
		assertThat(committed).as("committed after the announced write was handed in").isGreaterThan(handedIn.get());
		assertThat(Duration.ofNanos(committed - began)).isLessThan(COMPANY_WAIT);
	}

	@Test
	void aWriteAnnouncedAndNeverHandedInHoldsTheGroupOnlyUntilItsRequestEnds() throws Exception {
		CountDownLatch announced = new CountDownLatch(1);
		Future<?> refused = pool.submit(() -> {
			try (GroupCommit.Arrival arrival = groups.expect()) {
				announced.countDown();
				Thread.sleep(HANDED_IN_AFTER);
			}
			return null;
		});
		assertThat(announced.await(30, TimeUnit.SECONDS)).isTrue();
		long began = System.nanoTime();

		transactionId();

		assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(COMPANY_WAIT.minusSeconds(1));
		refused.get(30, TimeUnit.SECONDS);
	}

	@Test
	void noWriteWaitsWhenNoneIsAnnounced() {
		long began = System.nanoTime();

		long first = transactionId();
		long second = transactionId();

		assertThat(second).as("each committed alone").isNotEqualTo(first);
		assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(COMPANY_WAIT.minusSeconds(1));
	}

	@Test
	void aWaitOfZeroNeverWaits() throws Exception {
		groups.stop();
		groups = new GroupCommit(transactions, new WriteSettings(64, Duration.ofSeconds(10), Duration.ZERO), behind,
				new SimpleMeterRegistry());
		groups.start();
		try (GroupCommit.Arrival arrival = groups.expect()) {
			Future<Long> write = pool.submit(this::transactionId);
			assertThat(write.get(COMPANY_WAIT.toSeconds() - 1, TimeUnit.SECONDS)).isPositive();
		}
	}

	/** A write through the committer: the id of the transaction that committed it. */
	private long transactionId() {
		return groups.run(ServiceName.of(Names.service("company")), null,
				() -> jdbc.sql("SELECT txid_current()").query(Long.class).single());
	}

}
