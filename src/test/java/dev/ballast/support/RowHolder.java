package dev.ballast.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second connection that holds the service's row (FOR UPDATE) in an open transaction
 * until closed.
 */
public final class RowHolder implements AutoCloseable {

	private final CountDownLatch release = new CountDownLatch(1);

	private final Thread thread;

	private volatile int pid;

	private RowHolder(TransactionTemplate transactions, JdbcClient jdbc, String service, CountDownLatch locked) {
		this.thread = Thread.ofVirtual().start(() -> transactions.executeWithoutResult(status -> {
			jdbc.sql("SELECT name FROM service WHERE name = ? FOR UPDATE").param(service).query(String.class).single();
			pid = jdbc.sql("SELECT pg_backend_pid()").query(Integer.class).single();
			locked.countDown();
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}));
	}

	public static RowHolder hold(TransactionTemplate transactions, JdbcClient jdbc, String service)
			throws InterruptedException {
		CountDownLatch locked = new CountDownLatch(1);
		RowHolder holder = new RowHolder(transactions, jdbc, service, locked);
		assertThat(locked.await(10, TimeUnit.SECONDS)).as("the row is held").isTrue();
		return holder;
	}

	/** The backends waiting for a lock this holder holds. */
	public List<Integer> blockedBackends(JdbcClient jdbc) {
		return jdbc.sql("SELECT pid FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))")
			.param(pid)
			.query(Integer.class)
			.list();
	}

	@Override
	public void close() throws InterruptedException {
		release.countDown();
		assertThat(thread.join(Duration.ofSeconds(10))).as("the holder let go").isTrue();
	}

}
