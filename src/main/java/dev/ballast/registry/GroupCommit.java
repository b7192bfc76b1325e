package dev.ballast.registry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.ballast.database.CommitBatch;
import dev.ballast.database.CommitUnconfirmedException;
import dev.ballast.database.RolledBack;
import dev.ballast.database.Synchronizations;
import dev.ballast.web.OutcomeUnknownException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Group commit: the writes that request threads hand in while a transaction is being
 * written and committed are run one after the other, by one committer thread, in one
 * transaction, which commits them with one WAL flush; each caller is answered only once
 * that transaction has committed.
 * <p>
 * A write sees every earlier write of its group (same transaction), so its guard counts
 * them, and revisions, change-log rows and notifications come out in the order the writes
 * ran. Writes to different services have no order among themselves until they run; a
 * group runs them sorted by service (its arrival order kept within a service), so that
 * groups on several nodes lock service rows in one order and cannot deadlock on them.
 * <p>
 * A write that throws (a refusal: 404, 409, 422, or a database error) must not take its
 * group-mates with it, and a PostgreSQL transaction cannot go on after a failed
 * statement. Rather than a savepoint per write (two more round trips each, and a
 * subtransaction that PostgreSQL's snapshots pay for once 64 are open), the transaction
 * is rolled back, the failed write is answered with its exception, and the others run
 * again in a new transaction: they see what they saw before, less the refused write,
 * which changed nothing. Refusals are rare; the common group commits at the first
 * attempt. Work a write does outside the transaction (a counter, a log line) therefore
 * goes through {@link Synchronizations#afterCommit(Runnable)}.
 * <p>
 * When PostgreSQL rolls the group's transaction back to end a collision with another
 * transaction (a deadlock or a serialization failure, {@link RolledBack#collision}), no
 * write of the group is at fault: nothing was stored, and the whole group runs again, up
 * to {@value #CONFLICT_ATTEMPTS} attempts in all, so that its callers never see a
 * collision that running again resolves.
 * <p>
 * A group's transaction keeps the rows it locks and changes in memory
 * ({@link WriteBehind}): it locks the services of its writes and the instances they name
 * in one statement as it begins, and writes the changed rows, each service's revision
 * once, with the change log and the audit, in one exchange before it commits. Should that
 * break a constraint or hold a value the database refuses, the group runs again with a
 * statement per change and each write's change-log and audit rows written as it ends
 * ({@link CommitBatch#flush}), so that the failure names the write at fault and only that
 * write is refused: the common group pays nothing for this, only a failed one.
 * <p>
 * No write waits for company: the committer takes whatever is queued when it is free, so
 * a lone write is committed at once, and a group forms only from writes that would
 * otherwise have queued for CPU or for the service's row lock.
 */
@Component
class GroupCommit implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

	/**
	 * Attempts at a group that PostgreSQL keeps rolling back for a collision: each costs
	 * the database's deadlock_timeout (1 s by default) before the deadlock is found, and
	 * all must fit well within the commit wait.
	 */
	static final int CONFLICT_ATTEMPTS = 3;

	private final BlockingQueue<GroupWrite<?>> queue = new LinkedBlockingQueue<>();

	private final TransactionTemplate transactions;

	private final WriteSettings settings;

	private final WriteBehind behind;

	private final CommitBatch batch;

	private volatile Thread committer;

	private volatile boolean running;

	GroupCommit(PlatformTransactionManager transactions, WriteSettings settings, WriteBehind behind, CommitBatch batch,
			MeterRegistry meters) {
		this.transactions = new TransactionTemplate(transactions);
		this.settings = settings;
		this.behind = behind;
		this.batch = batch;
		Gauge.builder("ballast.writes.waiting", queue, BlockingQueue::size)
			.description("Writes waiting for the committer to take them into a group")
			.register(meters);
	}

	/** Writes handed in and not yet taken into a group. */
	int waiting() {
		return queue.size();
	}

	/**
	 * Runs {@code work} in a transaction shared with other threads' writes and returns
	 * its result once that transaction has committed. Inside a transaction already, or
	 * while the committer is not running (startup, shutdown), it runs in the caller's
	 * transaction or a new one of its own.
	 * @param service the service the write locks first
	 * @param id the instance the write is about, locked with the group's services when it
	 * begins (null: none)
	 * @throws QueryTimeoutException when it is dropped before it ran, as it was not
	 * committed within the commit wait
	 * @throws OutcomeUnknownException when its transaction had not committed within the
	 * commit wait, and may still commit
	 */
	<T> T run(ServiceName service, InstanceId id, Supplier<T> work) {
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			return work.get();
		}
		if (!running) {
			return transactions.execute(status -> work.get());
		}
		GroupWrite<T> write = new GroupWrite<>(new WriteBehind.Target(service, id), work,
				SecurityContextHolder.getContext(), RequestContextHolder.getRequestAttributes());
		queue.add(write);
		return write.outcome(settings.commitWait());
	}

	private void commitLoop() {
		List<GroupWrite<?>> taken = new ArrayList<>(settings.maxGroup());
		while (running || !queue.isEmpty()) {
			try {
				// Bounded, so that a stop is noticed while nothing is queued.
				GroupWrite<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				List<GroupWrite<?>> group = new ArrayList<>(settings.maxGroup());
				group.add(first);
				queue.drainTo(group, settings.maxGroup() - 1);
				group.stream().filter(GroupWrite::take).forEach(taken::add);
				commit(taken);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException | Error ex) {
				log.error("Group commit failed unexpectedly; its writes are answered with the error", ex);
				taken.forEach(write -> write.fail(ex));
			}
			finally {
				taken.clear();
			}
		}
	}

	private void commit(List<GroupWrite<?>> taken) {
		List<GroupWrite<?>> pending = new ArrayList<>(taken);
		pending.sort(Comparator.comparing(write -> write.target().service().value()));
		boolean writeBehind = true;
		int conflicts = 0;
		while (!pending.isEmpty()) {
			Attempt attempt = new Attempt();
			boolean keepRows = writeBehind;
			try {
				transactions.executeWithoutResult(status -> {
					if (keepRows) {
						behind.begin(pending.stream().map(GroupWrite::target).toList());
					}
					for (GroupWrite<?> write : pending) {
						if (!write.begin()) {
							// Its caller gave up before it ran: it writes nothing.
							continue;
						}
						Throwable failure = write.run();
						if (failure == null && !keepRows) {
							failure = flushed();
						}
						if (failure != null) {
							attempt.failed = write;
							attempt.failure = failure;
							status.setRollbackOnly();
							return;
						}
					}
				});
			}
			catch (DataIntegrityViolationException ex) {
				if (keepRows && attempt.failed == null) {
					// A row the group wrote at commit broke a constraint: run the writes
					// again with their own statements, to refuse only the one at fault.
					writeBehind = false;
					continue;
				}
				pending.forEach(write -> write.fail(attempt.failed == write ? attempt.failure : ex));
				return;
			}
			catch (CommitUnconfirmedException ex) {
				// The group may have committed: no write of it runs again, and none is
				// answered as written or as not written.
				pending.forEach(write -> write.fail(OutcomeUnknownException.of(ex)));
				return;
			}
			catch (RuntimeException ex) {
				// Beginning or committing failed: nothing of the group is stored.
				if (attempt.failed == null && runsAgain(ex, conflicts, pending)) {
					conflicts++;
					continue;
				}
				pending.forEach(write -> write.fail(attempt.failed == write ? attempt.failure : ex));
				return;
			}
			if (attempt.failed == null) {
				pending.forEach(GroupWrite::succeed);
				return;
			}
			if (runsAgain(attempt.failure, conflicts, pending)) {
				conflicts++;
				continue;
			}
			attempt.failed.fail(attempt.failure);
			pending.remove(attempt.failed);
		}
	}

	/**
	 * Writes the rows the current write appended to the transaction's batch, so that a
	 * refusal of theirs is that write's; the failure, if any.
	 */
	private Throwable flushed() {
		try {
			batch.flush();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * Whether a group whose attempt failed with {@code failure} runs again whole: when
	 * PostgreSQL ended it for a collision and {@code conflicts} earlier ones leave an
	 * attempt.
	 */
	private static boolean runsAgain(Throwable failure, int conflicts, List<GroupWrite<?>> pending) {
		Optional<RolledBack> conflict = RolledBack.causing(failure).filter(RolledBack::collision);
		if (conflict.isEmpty() || conflicts + 1 >= CONFLICT_ATTEMPTS) {
			return false;
		}
		log.info("A group of {} writes was rolled back for a {}; running it again (attempt {} of {})", pending.size(),
				conflict.get(), conflicts + 2, CONFLICT_ATTEMPTS);
		return true;
	}

	@Override
	public void start() {
		running = true;
		Thread thread = new Thread(this::commitLoop, "ballast-commit");
		thread.setDaemon(true);
		committer = thread;
		thread.start();
	}

	/**
	 * Stops taking writes once the web server has stopped (its lower phase): what is
	 * queued is committed first, within the commit wait.
	 */
	@Override
	public void stop() {
		running = false;
		Thread thread = committer;
		if (thread != null) {
			try {
				thread.join(settings.commitWait().toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	/**
	 * Started before the web server and stopped after it, so no accepted write is cut
	 * off.
	 */
	@Override
	public int getPhase() {
		return 0;
	}

	private static final class Attempt {

		private GroupWrite<?> failed;

		private Throwable failure;

	}

}
