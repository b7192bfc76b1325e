package dev.ballast.client;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The thread a {@link ServiceWatch} runs its {@link WatchLoop} on, and the timer it
 * shares with it: started once, and on close stopped within
 * {@value #CLOSE_TIMEOUT_SECONDS} s, so that closing a watch never hangs its caller.
 */
final class WatchThread {

	private static final int CLOSE_TIMEOUT_SECONDS = 5;

	private final WatchLoop loop;

	private final ScheduledExecutorService timer;

	private final Thread thread;

	private boolean closed;

	WatchThread(String name, WatchLoop loop, ScheduledExecutorService timer) {
		this.loop = loop;
		this.timer = timer;
		this.thread = ServiceWatch.daemon(name, loop);
	}

	/**
	 * Starts the loop on a daemon thread of its own.
	 * @throws IllegalStateException if it was already started or closed
	 */
	synchronized void start() {
		if (closed || thread.getState() != Thread.State.NEW) {
			throw new IllegalStateException("a watch starts once, before it is closed");
		}
		thread.start();
	}

	boolean connected() {
		return loop.connected();
	}

	/**
	 * Stops the loop and the timer; pending timer tasks (acknowledgements) are dropped.
	 */
	void close() {
		synchronized (this) {
			closed = true;
		}
		loop.stop();
		thread.interrupt();
		try {
			if (thread.getState() != Thread.State.NEW) {
				thread.join(TimeUnit.SECONDS.toMillis(CLOSE_TIMEOUT_SECONDS));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			timer.shutdownNow();
		}
	}

}
