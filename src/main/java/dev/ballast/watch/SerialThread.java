package dev.ballast.watch;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;

/**
 * One named thread that runs tasks in the order they were given: whatever only its tasks
 * touch needs no lock, and two such threads that hand each other work keep its order. A
 * stopped one is replaced on restart, as a paused application context starts again.
 *
 * <p>
 * A task may also run on the thread that gives it ({@link #executeHereIfIdle}) when
 * nothing given before it is waiting or running: waking a parked thread costs tens of
 * microseconds, and on a virtual machine whose other core is idle it now and then costs
 * milliseconds (measured on the 2-core benchmark machine: p50 35 µs, p99 2.7 ms while the
 * waking thread keeps running). Tasks still run one at a time and in order: each holds
 * the {@link #turn}, and a task leaves the queue only under it.
 */
final class SerialThread {

	private static final Logger log = LoggerFactory.getLogger(SerialThread.class);

	private final String name;

	/** Held by whichever thread runs a task: the tasks' own thread, or a giver. */
	private final ReentrantLock turn = new ReentrantLock();

	/** Tasks given and not taken yet, in order. */
	private final Queue<Runnable> queued = new ConcurrentLinkedQueue<>();

	private volatile ExecutorService executor;

	SerialThread(String name) {
		this.name = name;
		this.executor = newExecutor();
	}

	void execute(Runnable task) {
		execute(task, () -> {
		});
	}

	/** Runs {@code task} on the thread, or {@code whenStopped} here if it is stopped. */
	void execute(Runnable task, Runnable whenStopped) {
		queued.add(task);
		try {
			// One turn for every task queued: each takes the oldest task, so the order
			// holds whichever task a turn finds.
			executor.execute(this::takeTurn);
		}
		catch (RejectedExecutionException ex) {
			queued.remove(task);
			log.debug("{} is stopped; dropped a task", name);
			whenStopped.run();
		}
	}

	/**
	 * Runs {@code task} here and now if no task given before it is waiting or running,
	 * the thread is not stopped and {@code cheap} says so; otherwise queues it as
	 * {@link #execute} does. {@code cheap} is asked holding the turn, so it may read what
	 * only the tasks touch: it tells whether the task costs the giver little, as the
	 * giver waits for the task.
	 */
	void executeHereIfIdle(Runnable task, BooleanSupplier cheap) {
		// A task that gives another runs it after itself, as the thread would.
		if (!turn.isHeldByCurrentThread() && !executor.isShutdown() && turn.tryLock()) {
			try {
				if (queued.isEmpty() && cheap.getAsBoolean()) {
					run(task);
					return;
				}
			}
			finally {
				turn.unlock();
			}
		}
		execute(task);
	}

	private void takeTurn() {
		turn.lock();
		try {
			Runnable task = queued.poll();
			if (task != null) {
				run(task);
			}
		}
		finally {
			turn.unlock();
		}
	}

	private void run(Runnable task) {
		try {
			task.run();
		}
		catch (DataAccessException ex) {
			log.warn("{} could not read the database: {}", name, ex.getMessage());
		}
		catch (RuntimeException ex) {
			log.error("{} task failed", name, ex);
		}
	}

	/**
	 * Starts a new thread if this one was stopped; true if so, and what it kept may be
	 * stale.
	 */
	boolean restart() {
		if (!executor.isShutdown()) {
			return false;
		}
		executor = newExecutor();
		return true;
	}

	/** Runs what was given, then stops; gives up on what is left after two seconds. */
	void stop() {
		executor.shutdown();
		try {
			if (!executor.awaitTermination(2, TimeUnit.SECONDS)) {
				executor.shutdownNow();
				queued.clear();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private ExecutorService newExecutor() {
		return Executors.newSingleThreadExecutor(Thread.ofPlatform().name(name).daemon().factory());
	}

}
