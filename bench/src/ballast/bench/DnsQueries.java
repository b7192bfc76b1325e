package ballast.bench;

import java.io.ByteArrayOutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * DNS queries per second one node answers: closed-loop UDP clients, each with one socket,
 * send the same SRV query (EDNS0, 65,535 bytes of payload so that the whole answer fits)
 * and wait for its answer, for a warm-up and then a measured window. Prints queries/s,
 * p50/p99/max latency, the answers' size, and the server's CPU seconds per 1,000 queries
 * (utime + stime of the given processes from /proc, which load on the machine does not
 * inflate the way it does latency).
 *
 * java bench/src/ballast/bench/DnsQueries.java --port 5353 --name _bench-0._tcp.service.ballast --expect 100 --pids 1234
 */
public class DnsQueries {

	private static final int TIMEOUT_MILLIS = 1000;

	/** Latency buckets of 10 µs up to 1 s. */
	private static final int BUCKETS = 100_000;

	public static void main(String[] args) throws Exception {
		BenchArgs options = BenchArgs.parse(args, 0,
				BenchArgs.defaults("--port", "5353", "--name", "_bench-0._tcp.service.ballast", "--expect", "100",
						"--clients", "4", "--warmup", "5", "--seconds", "10", "--pids", ""),
				"usage: java bench/src/ballast/bench/DnsQueries.java [options]");
		int port = options.positive("--port");
		byte[] name = options.get("--name").getBytes(StandardCharsets.US_ASCII);
		int expect = options.nonNegative("--expect");
		int clients = options.positive("--clients");
		int warmup = options.nonNegative("--warmup");
		int seconds = options.positive("--seconds");
		long[] pids = options.pids("--pids");

		AtomicBoolean measuring = new AtomicBoolean();
		AtomicBoolean stop = new AtomicBoolean();
		LongAdder answered = new LongAdder();
		LongAdder failed = new LongAdder();
		LongAdder bytes = new LongAdder();
		long[][] histograms = new long[clients][BUCKETS + 1];
		List<Thread> threads = new ArrayList<>();
		for (int c = 0; c < clients; c++) {
			long[] histogram = histograms[c];
			threads.add(Thread.ofPlatform().start(() -> {
				try (DatagramSocket socket = new DatagramSocket()) {
					socket.connect(new InetSocketAddress("127.0.0.1", port));
					socket.setSoTimeout(TIMEOUT_MILLIS);
					byte[] buffer = new byte[65_535];
					DatagramPacket answer = new DatagramPacket(buffer, buffer.length);
					int id = (int) (Thread.currentThread().threadId() * 7919) & 0xffff;
					while (!stop.get()) {
						id = (id + 1) & 0xffff;
						byte[] query = query(id, name);
						long began = System.nanoTime();
						socket.send(new DatagramPacket(query, query.length));
						boolean good;
						try {
							do {
								answer.setLength(buffer.length);
								socket.receive(answer);
							}
							while (((buffer[0] & 0xff) << 8 | (buffer[1] & 0xff)) != id);
							int rcode = buffer[3] & 0xf;
							boolean truncated = (buffer[2] & 0x02) != 0;
							int answers = (buffer[6] & 0xff) << 8 | (buffer[7] & 0xff);
							good = rcode == 0 && !truncated && answers == expect;
						}
						catch (SocketTimeoutException ex) {
							good = false;
						}
						long micros = (System.nanoTime() - began) / 1000;
						if (measuring.get()) {
							if (good) {
								answered.increment();
								bytes.add(answer.getLength());
								histogram[(int) Math.min(BUCKETS, micros / 10)]++;
							}
							else {
								failed.increment();
							}
						}
					}
				}
				catch (Exception ex) {
					ex.printStackTrace();
				}
			}));
		}
		Thread.sleep(warmup * 1000L);
		double cpuBefore = ProcCpu.seconds(pids);
		long began = System.nanoTime();
		measuring.set(true);
		Thread.sleep(seconds * 1000L);
		measuring.set(false);
		double elapsed = (System.nanoTime() - began) / 1e9;
		double cpu = ProcCpu.seconds(pids) - cpuBefore;
		stop.set(true);
		for (Thread thread : threads) {
			thread.join(TIMEOUT_MILLIS * 2L);
		}
		long[] merged = new long[BUCKETS + 1];
		for (long[] histogram : histograms) {
			for (int i = 0; i <= BUCKETS; i++) {
				merged[i] += histogram[i];
			}
		}
		long n = answered.sum();
		System.out.printf(
				"dns: %d clients, %.1f s: %.0f queries/s answered in full (%d), %d failed or incomplete; "
						+ "latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; answer %d bytes; "
						+ "server CPU %.3f s per 1,000 queries%n",
				clients, elapsed, n / elapsed, n, failed.sum(), percentile(merged, n, 0.50),
				percentile(merged, n, 0.99), percentile(merged, n, 1.0), n == 0 ? 0 : bytes.sum() / n,
				n == 0 ? 0 : 1000 * cpu / n);
	}

	private static double percentile(long[] histogram, long total, double fraction) {
		long rank = (long) Math.ceil(total * fraction);
		long seen = 0;
		for (int i = 0; i < histogram.length; i++) {
			seen += histogram[i];
			if (seen >= rank && seen > 0) {
				return (i + 1) * 10 / 1000.0;
			}
		}
		return Double.NaN;
	}

	/** An SRV query for {@code name} with an EDNS0 OPT record offering 65,535 bytes. */
	private static byte[] query(int id, byte[] name) {
		ByteArrayOutputStream out = new ByteArrayOutputStream(64);
		out.write(id >> 8);
		out.write(id);
		out.writeBytes(new byte[] { 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1 });
		int start = 0;
		for (int i = 0; i <= name.length; i++) {
			if (i == name.length || name[i] == '.') {
				if (i > start) {
					out.write(i - start);
					out.write(name, start, i - start);
				}
				start = i + 1;
			}
		}
		out.write(0);
		out.writeBytes(new byte[] { 0, 33, 0, 1 }); // SRV, IN
		out.writeBytes(new byte[] { 0, 0, 41, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0, 0, 0 }); // OPT
		return out.toByteArray();
	}

}
