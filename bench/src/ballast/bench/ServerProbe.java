package ballast.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The server JVM through jcmd, /proc and its Prometheus endpoint. */
final class ServerProbe {

	final WatchOptions options;

	final HttpClient http;

	final long ticksPerSecond;

	ServerProbe(WatchOptions options, HttpClient http) {
		this.options = options;
		this.http = http;
		this.ticksPerSecond = clockTicks();
	}

	/** Used heap after a full GC, as the server's own metrics report it. */
	double heapAfterFullGc() throws IOException, InterruptedException {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid()), "GC.run")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		if (!gc.waitFor(60, TimeUnit.SECONDS) || gc.exitValue() != 0) {
			throw new IllegalStateException("jcmd " + options.serverPid() + " GC.run failed");
		}
		// The gauge is read from the memory pools at scrape time, so right after the GC
		// it shows what survived (plus what the scrape itself allocates).
		Thread.sleep(500);
		HttpResponse<Stream<String>> response = http.send(
				HttpRequest.newBuilder(URI.create(options.url() + "/actuator/prometheus"))
					.timeout(Duration.ofSeconds(10))
					.header("Authorization", options.authorization())
					.build(),
				HttpResponse.BodyHandlers.ofLines());
		if (response.statusCode() != 200) {
			throw new IllegalStateException("/actuator/prometheus answered " + response.statusCode());
		}
		return response.body()
			.filter(l -> l.startsWith("jvm_memory_used_bytes{") && l.contains("area=\"heap\""))
			.mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
			.sum();
	}

	/** Class -> {instances, bytes} of live objects (the histogram runs a full GC first). */
	Map<String, long[]> histogram() throws IOException, InterruptedException {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		Process process = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid()),
				"GC.class_histogram")
			.redirectErrorStream(true)
			.start();
		Map<String, long[]> classes = new HashMap<>();
		Pattern row = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
		try (var lines = process.inputReader().lines()) {
			lines.forEach(l -> {
				Matcher m = row.matcher(l);
				if (m.find()) {
					classes.put(m.group(3), new long[] { Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) });
				}
			});
		}
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			process.destroy();
		}
		return classes;
	}

	/** Which classes the open streams added, per stream: where the heap per watcher goes. */
	static String growth(Map<String, long[]> before, Map<String, long[]> after, int watchers) {
		if (before == null || after == null || before.isEmpty() || after.isEmpty() || watchers == 0) {
			return "";
		}
		List<Map.Entry<String, long[]>> grown = new ArrayList<>();
		after.forEach((name, a) -> {
			long[] b = before.getOrDefault(name, new long[2]);
			grown.add(Map.entry(name, new long[] { a[0] - b[0], a[1] - b[1] }));
		});
		grown.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
		long total = grown.stream().mapToLong(e -> e.getValue()[1]).sum();
		StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
				"heap growth by class (GC.class_histogram, %d watchers): %.0f bytes per watcher in all; largest:%n",
				watchers, total / (double) watchers));
		for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(12, grown.size()))) {
			out.append(String.format(Locale.ROOT, "  %8.0f B/watcher %6.2f objects/watcher  %s%n",
					e.getValue()[1] / (double) watchers, e.getValue()[0] / (double) watchers, e.getKey()));
		}
		return out.toString();
	}

	/** utime + stime of a /proc stat line, in seconds. */
	double cpuSeconds(Path stat) {
		try {
			String text = Files.readString(stat);
			String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
			// Fields 14 and 15 of proc(5); the split starts at field 3.
			return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) ticksPerSecond;
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	static String threadName(Path stat) {
		try {
			String text = Files.readString(stat);
			return text.substring(text.indexOf('(') + 1, text.lastIndexOf(')'));
		}
		catch (IOException ex) {
			return "?";
		}
	}

	Map<String, Double> threads() {
		Map<String, Double> cpu = new HashMap<>();
		try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(options.serverPid()), "task"))) {
			tasks.forEach(task -> cpu.put(task.getFileName() + " " + threadName(task.resolve("stat")),
					cpuSeconds(task.resolve("stat"))));
		}
		catch (IOException ex) {
			// The server is gone; the report says so through the missing figures.
		}
		return cpu;
	}

	/**
	 * CPU seconds of the PostgreSQL postmaster and its backends. The embedded server
	 * detaches from the JVM (its parent is init), so it is named separately. Backends
	 * that exit within the window take their time with them; the pool's connections
	 * live for the whole run.
	 */
	double postgresSeconds() {
		if (options.postgresPid() <= 0) {
			return Double.NaN;
		}
		return ProcessHandle.of(options.postgresPid())
			.stream()
			.flatMap(p -> Stream.concat(Stream.of(p), p.descendants()))
			.mapToDouble(p -> cpuSeconds(Path.of("/proc", Long.toString(p.pid()), "stat")))
			.sum();
	}

	/** Java thread names by native thread id: /proc truncates names to 15 characters. */
	Map<String, String> javaThreadNames() {
		Map<String, String> names = new HashMap<>();
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		Pattern header = Pattern.compile("^\"(.*)\" #\\d+ .*\\[(\\d+)\\]");
		try {
			Process process = new ProcessBuilder(jcmd.toString(), Long.toString(options.serverPid()), "Thread.print")
				.redirectErrorStream(true)
				.start();
			try (var lines = process.inputReader().lines()) {
				lines.forEach(l -> {
					Matcher m = header.matcher(l);
					if (m.find()) {
						names.put(m.group(2), m.group(1));
					}
				});
			}
			process.waitFor(30, TimeUnit.SECONDS);
		}
		catch (IOException ex) {
			// The /proc names are used instead.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return names;
	}

	String rss() {
		try {
			return Files.readAllLines(Path.of("/proc", Long.toString(options.serverPid()), "status"))
				.stream()
				.filter(l -> l.startsWith("VmRSS:"))
				.map(l -> l.substring(6).trim())
				.findFirst()
				.orElse("?");
		}
		catch (IOException ex) {
			return "?";
		}
	}

	private static long clockTicks() {
		try {
			Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
			String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
			p.waitFor();
			return Long.parseLong(out);
		}
		catch (IOException | RuntimeException | InterruptedException ex) {
			return 100;
		}
	}

}
