package ballast.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** CPU and memory of the server (and of this client) over the measured window. */
final class ProbeWindow {

	long beganNanos;

	long endedNanos;

	double serverBegin;

	double serverEnd;

	double postgresBegin;

	double postgresEnd;

	double selfBegin;

	double selfEnd;

	Map<String, Double> threadsBegin;

	Map<String, Double> threadsEnd;

	String rss;

	Map<String, String> javaNames = Map.of();

	void begin(ServerProbe probe) {
		beganNanos = System.nanoTime();
		serverBegin = probe.cpuSeconds(Path.of("/proc", Long.toString(probe.options.serverPid()), "stat"));
		postgresBegin = probe.postgresSeconds();
		selfBegin = probe.cpuSeconds(Path.of("/proc/self/stat"));
		threadsBegin = probe.threads();
	}

	void end(ServerProbe probe) {
		endedNanos = System.nanoTime();
		serverEnd = probe.cpuSeconds(Path.of("/proc", Long.toString(probe.options.serverPid()), "stat"));
		postgresEnd = probe.postgresSeconds();
		selfEnd = probe.cpuSeconds(Path.of("/proc/self/stat"));
		threadsEnd = probe.threads();
		rss = probe.rss();
		javaNames = probe.javaThreadNames();
	}

	String describe(WatchOptions options) {
		double seconds = (endedNanos - beganNanos) / 1e9;
		StringBuilder out = new StringBuilder();
		WatchReport.line(out, "server RSS", rss + " at the end of the measured window");
		WatchReport.line(out, "CPU, measured", ("%.1f s (first measured write to last event read): server JVM %.1f s "
				+ "(%.0f%% of one core), its PostgreSQL %.1f s, ").formatted(seconds, serverEnd - serverBegin,
						100 * (serverEnd - serverBegin) / seconds, postgresEnd - postgresBegin)
				+ "this client %.1f s".formatted(selfEnd - selfBegin));
		List<Map.Entry<String, Double>> busiest = new ArrayList<>();
		threadsEnd.forEach((thread, end) -> busiest
			.add(Map.entry(thread, end - threadsBegin.getOrDefault(thread, 0.0))));
		busiest.sort(Map.Entry.<String, Double>comparingByValue().reversed());
		Map<String, String> top = new LinkedHashMap<>();
		for (Map.Entry<String, Double> entry : busiest.subList(0, Math.min(6, busiest.size()))) {
			String tid = entry.getKey().substring(0, entry.getKey().indexOf(' '));
			top.put(javaNames.getOrDefault(tid, entry.getKey().substring(tid.length() + 1)),
					"%.1f s".formatted(entry.getValue()));
		}
		WatchReport.line(out, "busiest threads", "CPU s in the window: " + top.toString().replaceAll("[{}]", ""));
		return out.toString();
	}

}
