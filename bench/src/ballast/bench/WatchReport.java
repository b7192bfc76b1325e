package ballast.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** The figures of a {@link WatchLatency} run, and whether it met its goals. */
final class WatchReport {

	private WatchReport() {
	}

	static boolean report(WatchOptions options, WatchClient client, WeightWrite[] writes, int opened, boolean drained,
			double heapBefore, double heapAfter, ServerProbe probe, ProbeWindow window) {
		List<Watch> open = client.watches.stream().filter(Watch::ready).toList();
		long writeFailures = Arrays.stream(writes).filter(w -> w.failure != null).count();
		long measuredWrites = Arrays.stream(writes).filter(w -> w.measured && w.failure == null).count();
		long allWrites = Arrays.stream(writes).filter(w -> w.failure == null).count();
		// Two acknowledgements with one revision would mean a PATCH changed nothing.
		long sharedRevisions = allWrites
				- Arrays.stream(writes).filter(w -> w.failure == null).mapToLong(w -> w.revision).distinct().count();
		long lateStarts = Arrays.stream(writes)
			.filter(w -> w.sentNanos - w.scheduledNanos > TimeUnit.SECONDS.toNanos(1) / options.rate())
			.count();
		long writeMax = Arrays.stream(writes)
			.filter(w -> w.failure == null)
			.mapToLong(w -> w.ackedNanos - w.sentNanos)
			.max()
			.orElse(-1);
		long[] writeLatencies = Arrays.stream(writes)
			.filter(w -> w.measured && w.failure == null)
			.mapToLong(w -> w.ackedNanos - w.sentNanos)
			.sorted()
			.toArray();

		int pairs = (int) Math.min(Integer.MAX_VALUE - 8, (long) open.size() * measuredWrites);
		long[] fromAck = new long[pairs];
		long[] fromSend = new long[pairs];
		int n = 0;
		long missingMeasured = 0;
		long missingAll = 0;
		long beforeAck = 0;
		long[] spreads = new long[writes.length];
		int spreadCount = 0;
		for (WeightWrite write : writes) {
			if (write.failure != null) {
				continue;
			}
			long first = Long.MAX_VALUE;
			long lastAt = Long.MIN_VALUE;
			for (Watch watch : open) {
				long index = write.revision - watch.snapshotRevision - 1;
				long at = index >= 0 && index < watch.received.length ? watch.received[(int) index] : 0;
				if (index < 0) {
					// The snapshot already held this change (not expected: the writes start
					// after every snapshot arrived).
					continue;
				}
				if (at == 0) {
					missingAll++;
					if (write.measured) {
						missingMeasured++;
					}
					continue;
				}
				if (!write.measured) {
					continue;
				}
				first = Math.min(first, at);
				lastAt = Math.max(lastAt, at);
				long ack = at - write.ackedNanos;
				if (ack < 0) {
					beforeAck++;
					ack = 0;
				}
				fromAck[n] = ack;
				fromSend[n] = at - write.sentNanos;
				n++;
			}
			if (first <= lastAt) {
				spreads[spreadCount++] = lastAt - first;
			}
		}
		spreads = Arrays.copyOf(spreads, spreadCount);
		Arrays.sort(spreads);
		WeightWrite[] measuredSent = Arrays.stream(writes).filter(w -> w.measured).toArray(WeightWrite[]::new);
		double sentRate = measuredSent.length < 2 ? Double.NaN : (measuredSent.length - 1) * 1e9
				/ (measuredSent[measuredSent.length - 1].sentNanos - measuredSent[0].sentNanos);
		fromAck = Arrays.copyOf(fromAck, n);
		fromSend = Arrays.copyOf(fromSend, n);
		Arrays.sort(fromAck);
		Arrays.sort(fromSend);

		long gaps = open.stream().mapToLong(w -> w.gaps).sum();
		long outOfOrder = open.stream().mapToLong(w -> w.outOfOrder).sum();
		long duplicates = open.stream().mapToLong(w -> w.duplicates).sum();
		long resyncs = open.stream().mapToLong(w -> w.resyncs).sum();
		long reconnects = open.stream().mapToLong(w -> w.reconnects).sum();
		long beyond = open.stream().mapToLong(w -> w.beyondCapacity).sum();
		long events = open.stream().mapToLong(w -> w.events).sum();
		long keepalives = open.stream().mapToLong(w -> w.keepalives).sum();
		long expectedAll = open.size() * allWrites;
		long expectedMeasured = open.size() * measuredWrites;
		long foreign = events - (expectedAll - missingAll) - duplicates;

		StringBuilder out = new StringBuilder();
		out.append("\n==== Ballast watch fan-out benchmark ====\n");
		line(out, "target", options.url() + "/v1/services/" + options.service() + "/watch");
		if (!options.writeUrl().equals(options.url())) {
			line(out, "writes to", options.writeUrl() + " (another node: cross-node delivery)");
		}
		line(out, "watchers opened", "%d of %d (%d failed: %s)".formatted(opened, options.watchers(),
				client.failed.get(), client.failureKinds.isEmpty() ? "none" : client.failureKinds));
		line(out, "still open at end", "%d".formatted(open.stream().filter(w -> !w.closed).count()));
		line(out, "writes", "%d ok of %d (%d failed), %d measured, sent at %.1f/s; %d sent over one period late; "
			.formatted(allWrites, writes.length, writeFailures, measuredWrites, sentRate, lateStarts)
				+ "PATCH p50 %s, p99 %s, max %s".formatted(millis(percentile(writeLatencies, 50)),
						millis(percentile(writeLatencies, 99)), millis(writeMax))
				+ (sharedRevisions == 0 ? "" : "; %d acknowledged an already used revision".formatted(sharedRevisions)));
		line(out, "events (measured)", "expected %d, received %d, missing %d".formatted(expectedMeasured,
				expectedMeasured - missingMeasured, missingMeasured));
		line(out, "events (all)", "expected %d, received %d, missing %d; %d other revisions, %d keepalives"
			.formatted(expectedAll, expectedAll - missingAll, missingAll, foreign, keepalives));
		line(out, "order", "%d gaps, %d out of order, %d duplicates, %d fresh snapshots (resyncs), %d reconnects%s"
			.formatted(gaps, outOfOrder, duplicates, resyncs, reconnects,
					beyond == 0 ? "" : ", %d ids beyond the expected range".formatted(beyond)));
		line(out, "drained", drained ? "every open watcher reached the last revision"
				: "NOT every watcher reached the last revision within %d s".formatted(options.drainSeconds()));
		line(out, "latency from ack",
				"p50 %s, p99 %s, p99.9 %s, max %s  (%d of %d pairs arrived before the ack and count as 0)".formatted(
						millis(percentile(fromAck, 50)), millis(percentile(fromAck, 99)),
						millis(percentile(fromAck, 99.9)), millis(last(fromAck)), beforeAck, n));
		line(out, "latency from send", "p50 %s, p99 %s, p99.9 %s, max %s".formatted(millis(percentile(fromSend, 50)),
				millis(percentile(fromSend, 99)), millis(percentile(fromSend, 99.9)), millis(last(fromSend))));
		// How long one change takes to reach every watcher: the node writes the streams one
		// after another, and this client reads them one after another.
		line(out, "fan-out spread", "first to last watcher per change: p50 %s, p99 %s, max %s".formatted(
				millis(percentile(spreads, 50)), millis(percentile(spreads, 99)), millis(last(spreads))));
		long p99 = percentile(fromAck, 99);
		line(out, "goal p99", "< %s ms from ack: %s".formatted(number(options.goalP99Millis()),
				p99 < 0 ? "n/a" : p99 / 1e6 < options.goalP99Millis() ? "met" : "NOT met"));
		if (probe != null) {
			double perWatcher = opened == 0 ? Double.NaN : (heapAfter - heapBefore) / opened;
			line(out, "server heap", "%.1f MB before, %.1f MB with %d watchers open (after a full GC each)"
				.formatted(heapBefore / 1048576, heapAfter / 1048576, opened));
			line(out, "heap per watcher", "%.0f bytes (%.1f KiB); goal <= %s KiB: %s".formatted(perWatcher,
					perWatcher / 1024, number(options.goalHeapBytes() / 1024),
					perWatcher <= options.goalHeapBytes() ? "met" : "NOT met"));
			out.append(window.describe(options));
		}
		boolean ok = opened == options.watchers() && client.failed.get() == 0 && writeFailures == 0 && sharedRevisions == 0
				&& missingAll == 0 && gaps == 0 && outOfOrder == 0 && duplicates == 0 && resyncs == 0
				&& reconnects == 0 && beyond == 0 && drained && measuredWrites > 0;
		line(out, "result", ok ? "PASS (every watcher received every change, in order)" : "FAIL");
		out.append("=========================================\n");
		System.out.print(out);
		for (String sample : client.failureSamples) {
			System.out.println("failure sample: " + sample);
		}
		Arrays.stream(writes)
			.filter(w -> w.failure != null)
			.limit(3)
			.forEach(w -> System.out.println("failure sample: " + w.failure));
		return ok;
	}

	private static long percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return -1;
		}
		int rank = (int) Math.ceil(p / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	private static long last(long[] sorted) {
		return sorted.length == 0 ? -1 : sorted[sorted.length - 1];
	}

	private static String millis(long nanos) {
		return nanos < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
	}

	private static String number(double value) {
		return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
	}

	static void line(StringBuilder out, String label, String value) {
		out.append(String.format(Locale.ROOT, "%-19s %s%n", label + ":", value));
	}

}
