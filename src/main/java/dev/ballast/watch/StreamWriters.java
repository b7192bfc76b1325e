package dev.ballast.watch;

/**
 * The threads that write queued events to the sockets of streams, one per core. The
 * delivering thread only queues an event's bytes (rendered once for every stream of a
 * service) and hands each stream here; a stream's writes cost a socket send each, so
 * 10,000 streams spread over every core reach their clients in a fraction of the time one
 * thread takes, and the delivering thread is free for the next change at once.
 *
 * <p>
 * A stream always goes to the same writer, and is queued there at most once at a time:
 * however many events it gets meanwhile, one drain writes them all. Writes never wait for
 * a client (see {@link Watcher#drain}), so a slow stream holds no writer.
 */
final class StreamWriters {

	private final SerialThread[] threads;

	StreamWriters(int count) {
		threads = new SerialThread[count];
		for (int i = 0; i < count; i++) {
			threads[i] = new SerialThread("ballast-watch-write-" + (i + 1));
		}
	}

	/** As many writers as the JVM has processors. */
	static StreamWriters perCore() {
		return new StreamWriters(Runtime.getRuntime().availableProcessors());
	}

	/**
	 * Has the stream's writer write what it holds queued; a stream already waiting for
	 * its writer is not queued twice, as that drain writes everything queued by then.
	 */
	void drain(Watcher watcher) {
		if (watcher.scheduleDrain()) {
			threads[Math.floorMod(watcher.hashCode(), threads.length)].execute(watcher::scheduledDrain,
					watcher::scheduledDrain);
		}
	}

	/** Starts new threads if these were stopped, as a paused context starts again. */
	void restart() {
		for (SerialThread thread : threads) {
			thread.restart();
		}
	}

	/**
	 * Writes what was handed over, then stops (bounded, see {@link SerialThread#stop}).
	 */
	void stop() {
		for (SerialThread thread : threads) {
			thread.stop();
		}
	}

}
