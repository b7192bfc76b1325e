package dev.ballast.watch;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * a client (see {@link Watcher#drain}), so a slow stream holds no writer. An event for
 * thousands of streams is handed over in {@link Batch batches}, one task per writer for
 * many streams, so that the hand-off costs the delivering thread little per stream. An
 * event for no more than {@link #FEW} streams is written by the thread that has it, as
 * the sends take less time than waking a writer (see {@link SerialThread}).
 */
final class StreamWriters {

	/** Streams per task: the first writes start while later streams are still queued. */
	static final int BATCH = 128;

	/**
	 * At most this many streams are written without a hand-off: a send costs some 10 µs
	 * of CPU, a wake-up 35 µs at the median and milliseconds in the tail.
	 */
	static final int FEW = 4;

	private static final Logger log = LoggerFactory.getLogger(StreamWriters.class);

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

	/** A new hand-off of many streams; {@link Batch#submit} ends it. */
	Batch batch() {
		return new Batch();
	}

	private int writerOf(Watcher watcher) {
		return Math.floorMod(watcher.hashCode(), threads.length);
	}

	/**
	 * A stream whose drain failed unexpectedly ends (its client reconnects); the others
	 * of its batch are written all the same.
	 */
	private static void drainOrEnd(Watcher watcher) {
		try {
			watcher.scheduledDrain();
		}
		catch (RuntimeException ex) {
			log.error("Writing a stream failed; closing it", ex);
			watcher.close();
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

	/**
	 * Streams to drain, gathered per writer and handed over {@link #BATCH} at a time, or
	 * drained on {@link #submit} if they are {@link #FEW}; on one thread only.
	 */
	final class Batch {

		@SuppressWarnings("unchecked")
		private final List<Watcher>[] pending = new List[threads.length];

		/** The first streams, kept back until it is known whether they are few. */
		private final List<Watcher> first = new ArrayList<>(FEW);

		private boolean many;

		private Batch() {
		}

		/**
		 * Has the stream's writer write what it holds queued; a stream already waiting
		 * for its writer is not queued twice, as that drain writes everything queued by
		 * then.
		 */
		void add(Watcher watcher) {
			if (!watcher.scheduleDrain()) {
				return;
			}
			if (!many) {
				if (first.size() < FEW) {
					first.add(watcher);
					return;
				}
				many = true;
				first.forEach(this::queue);
			}
			queue(watcher);
		}

		private void queue(Watcher watcher) {
			int writer = writerOf(watcher);
			if (pending[writer] == null) {
				pending[writer] = new ArrayList<>(BATCH);
			}
			pending[writer].add(watcher);
			if (pending[writer].size() == BATCH) {
				handOver(writer);
			}
		}

		/** Drains a few streams here, or hands over what is left of many. */
		void submit() {
			if (!many) {
				first.forEach(StreamWriters::drainOrEnd);
				return;
			}
			for (int writer = 0; writer < pending.length; writer++) {
				handOver(writer);
			}
		}

		private void handOver(int writer) {
			List<Watcher> streams = pending[writer];
			if (streams == null) {
				return;
			}
			pending[writer] = null;
			Runnable drainAll = () -> streams.forEach(StreamWriters::drainOrEnd);
			threads[writer].execute(drainAll, drainAll);
		}

	}

}
