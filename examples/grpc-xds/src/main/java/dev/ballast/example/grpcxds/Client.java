package dev.ballast.example.grpcxds;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;

/**
 * A grpc-java client of {@code xds:///<service>}: grpc-java's xDS name resolver reads the
 * bootstrap file named by {@code GRPC_XDS_BOOTSTRAP} (Ballast's address, this client's
 * node id, zone and token) and balances by what Ballast sends. The calls themselves go
 * straight to the backends, in plaintext.
 *
 * <pre>
 * Client split    TARGET CALLS THREADS    calls, then one line: split a=5012 b=3301 ... failed=0
 * Client windows  TARGET SECONDS THREADS  one line per second: window 3 a=812 c=97 failed=0
 * Client probe    TARGET SECONDS          served NAME, or refused CODE: DESCRIPTION
 * </pre>
 *
 * Before counting, {@code split} and {@code windows} wait (at most a minute) for the
 * first call that succeeds: the time the client takes to read its configuration.
 */
public final class Client {

	private static final long DEADLINE_MILLIS = 2000;

	private Client() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		ManagedChannel channel = Grpc.newChannelBuilder(args[1], InsecureChannelCredentials.create()).build();
		try {
			switch (mode) {
				case "split" -> split(channel, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
				case "windows" -> windows(channel, Integer.parseInt(args[2]), Integer.parseInt(args[3]));
				case "probe" -> probe(channel, Integer.parseInt(args[2]));
				default -> throw new IllegalArgumentException("mode must be split, windows or probe; got " + mode);
			}
		}
		finally {
			channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
	}

	private static String call(ManagedChannel channel) {
		return ClientCalls.blockingUnaryCall(channel, Who.NAME,
				CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_MILLIS, TimeUnit.MILLISECONDS), "");
	}

	/** Waits for the first call that succeeds; fails after a minute. */
	private static void ready(ManagedChannel channel) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		StatusRuntimeException last = null;
		while (System.nanoTime() < deadline) {
			try {
				call(channel);
				return;
			}
			catch (StatusRuntimeException ex) {
				last = ex;
				Thread.sleep(200);
			}
		}
		throw new IllegalStateException("no call succeeded within 60 s; last: " + last);
	}

	private static void split(ManagedChannel channel, int calls, int threads) throws InterruptedException {
		ready(channel);
		Map<String, LongAdder> counts = new ConcurrentHashMap<>();
		AtomicLong left = new AtomicLong(calls);
		run(threads, () -> {
			while (left.getAndDecrement() > 0) {
				counts.computeIfAbsent(outcome(channel), k -> new LongAdder()).increment();
			}
		});
		System.out.println("split " + line(counts));
	}

	private static void windows(ManagedChannel channel, int seconds, int threads) throws InterruptedException {
		ready(channel);
		Map<Long, Map<String, LongAdder>> windows = new ConcurrentHashMap<>();
		long start = System.nanoTime();
		long end = start + TimeUnit.SECONDS.toNanos(seconds);
		Thread printer = Thread.ofPlatform().start(() -> {
			for (long window = 0; window < seconds; window++) {
				long closes = start + TimeUnit.SECONDS.toNanos(window + 1);
				try {
					Thread.sleep(Math.max(0, (closes - System.nanoTime()) / 1_000_000 + 50));
				}
				catch (InterruptedException ex) {
					return;
				}
				System.out.println("window " + window + " " + line(windows.getOrDefault(window, Map.of())));
				System.out.flush();
			}
		});
		run(threads, () -> {
			long now;
			while ((now = System.nanoTime()) < end) {
				String outcome = outcome(channel);
				long window = (now - start) / 1_000_000_000L;
				windows.computeIfAbsent(window, w -> new ConcurrentHashMap<>())
					.computeIfAbsent(outcome, k -> new LongAdder())
					.increment();
			}
		});
		printer.join();
	}

	private static void probe(ManagedChannel channel, int seconds) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		StatusRuntimeException last = null;
		while (System.nanoTime() < deadline) {
			try {
				System.out.println("served " + call(channel));
				return;
			}
			catch (StatusRuntimeException ex) {
				last = ex;
				Thread.sleep(250);
			}
		}
		System.out.println("refused " + (last == null ? "nothing tried" : last.getStatus().getCode() + ": "
				+ String.valueOf(last.getStatus().getDescription()).replace('\n', ' ')));
	}

	/** The backend's name, or {@code failed} (the first few failures are printed). */
	private static String outcome(ManagedChannel channel) {
		try {
			return call(channel);
		}
		catch (StatusRuntimeException ex) {
			if (FAILURES_SHOWN.getAndIncrement() < 5) {
				System.err.println("call failed: " + ex.getStatus());
			}
			return "failed";
		}
	}

	private static final AtomicLong FAILURES_SHOWN = new AtomicLong();

	private static void run(int threads, Runnable work) throws InterruptedException {
		CountDownLatch done = new CountDownLatch(threads);
		for (int i = 0; i < threads; i++) {
			Thread.ofPlatform().start(() -> {
				try {
					work.run();
				}
				finally {
					done.countDown();
				}
			});
		}
		done.await();
	}

	/** {@code a=5012 b=3301 c=1687 failed=0}, names sorted, failed always shown. */
	private static String line(Map<String, ? extends Number> counts) {
		Map<String, Long> sorted = new TreeMap<>();
		counts.forEach((name, count) -> sorted.put(name, count.longValue()));
		long failed = sorted.getOrDefault("failed", 0L);
		sorted.remove("failed");
		StringBuilder line = new StringBuilder();
		sorted.forEach((name, count) -> line.append(name).append('=').append(count).append(' '));
		return line.append("failed=").append(failed).toString();
	}

}
