package dev.ballast.watch;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;

/**
 * One named thread that runs tasks in the order they were given: whatever only it touches
 * needs no lock, and two such threads that hand each other work keep its order. A stopped
 * one is replaced on restart, as a paused application context starts again.
 */
final class SerialThread {

	private static final Logger log = LoggerFactory.getLogger(SerialThread.class);

	private final String name;

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
		try {
			executor.execute(() -> {
				try {
					task.run();
				}
				catch (DataAccessException ex) {
					log.warn("{} could not read the database: {}", name, ex.getMessage());
				}
				catch (RuntimeException ex) {
					log.error("{} task failed", name, ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			log.debug("{} is stopped; dropped a task", name);
			whenStopped.run();
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
