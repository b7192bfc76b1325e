package ballast.bench;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How long a parked thread takes to run after another unparks it, on this machine: the
 * cost of every hand-off between threads (a commit to the delivering thread, the
 * delivering thread to a stream's writer). Two cases, alternated: the waking thread keeps
 * running (spins), as a committing thread does after the hand-off, so the woken thread
 * needs the other core; or it parks at once, so the woken thread may take its core.
 *
 * <pre>
 * java bench/src/ballast/bench/WakeUp.java [--samples 400] [--rounds 3]
 * </pre>
 */
final class WakeUp {

	private static volatile long sent;

	private static volatile long woke;

	private WakeUp() {
	}

	public static void main(String[] args) throws InterruptedException {
		int samples = 400;
		int rounds = 3;
		for (int i = 0; i + 1 < args.length; i += 2) {
			switch (args[i]) {
				case "--samples" -> samples = Integer.parseInt(args[i + 1]);
				case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
				default -> throw new IllegalArgumentException("unknown option " + args[i]);
			}
		}
		Thread waker = Thread.currentThread();
		Thread sleeper = Thread.ofPlatform().daemon().start(() -> {
			while (true) {
				LockSupport.park();
				if (sent != 0 && woke == 0) {
					woke = System.nanoTime();
					LockSupport.unpark(waker);
				}
			}
		});
		for (int round = 1; round <= rounds; round++) {
			for (boolean spins : new boolean[] { true, false }) {
				long[] micros = new long[samples];
				for (int i = 0; i < samples; i++) {
					// Idle between hand-offs, as at 20 changes a second: both threads park.
					Thread.sleep(25);
					woke = 0;
					sent = System.nanoTime();
					LockSupport.unpark(sleeper);
					long giveUp = sent + TimeUnit.SECONDS.toNanos(5);
					while (woke == 0 && System.nanoTime() < giveUp) {
						if (spins) {
							Thread.onSpinWait();
						}
						else {
							LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
						}
					}
					if (woke == 0) {
						throw new IllegalStateException("the woken thread did not run within 5 s");
					}
					micros[i] = (woke - sent) / 1_000;
					sent = 0;
				}
				Arrays.sort(micros);
				System.out.printf("RESULT figure=wake-up round=%d waker=%s samples=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d%n",
						round, spins ? "keeps-running" : "parks", samples, micros[samples / 2],
						micros[samples * 9 / 10], micros[samples * 99 / 100], micros[samples - 1]);
			}
		}
		sleeper.interrupt();
	}

}
