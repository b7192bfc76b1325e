package dev.ballast.support;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** A registry node run from the packaged jar as its own process, as operators run it. */
public final class Node implements AutoCloseable {

	/**
	 * Spring Boot's line once Tomcat listens; the closing "(http)" makes sure a line
	 * still being written is not read with half its digits.
	 */
	private static final Pattern TOMCAT_STARTED = Pattern.compile("Tomcat started on port (\\d+) \\(http\\)");

	private final Process process;

	private final int port;

	private final Duration startup;

	private Node(Process process, int port, Duration startup) {
		this.process = process;
		this.port = port;
		this.startup = startup;
	}

	/**
	 * Starts {@code java -jar} on a loopback port the node binds itself (port 0, so no
	 * other socket can take it between a choice and the bind) and waits (at most 120 s)
	 * until the port it bound, read from its log, answers UP on the health endpoint.
	 */
	public static Node start(Path dataDir, Path log, String... extraArgs) {
		return start(List.of(), dataDir, log, extraArgs);
	}

	/** As {@link #start(Path, Path, String...)}, with options for the JVM. */
	public static Node start(List<String> jvmOptions, Path dataDir, Path log, String... extraArgs) {
		String jar = System.getProperty("ballast.jar");
		if (jar == null) {
			throw new IllegalStateException("system property ballast.jar is not set; run with ./mvnw verify");
		}
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.addAll(
				List.of("-jar", jar, "--server.port=0", "--server.address=127.0.0.1", "--ballast.data-dir=" + dataDir));
		// A test may give its own bootstrap token (or an empty one, for a generated
		// token).
		if (Stream.of(extraArgs).noneMatch(arg -> arg.startsWith("--BALLAST_BOOTSTRAP_ADMIN_TOKEN="))) {
			command.add("--" + Admin.bootstrapProperty());
		}
		command.addAll(List.of(extraArgs));
		long started = System.nanoTime();
		try {
			// A test may append several runs to one log: only this run's lines count.
			long logStart = Files.exists(log) ? Files.size(log) : 0;
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			int port = awaitHealthy(process, log, logStart, Duration.ofSeconds(120));
			return new Node(process, port, Duration.ofNanos(System.nanoTime() - started));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public int port() {
		return port;
	}

	public Duration startup() {
		return startup;
	}

	public long pid() {
		return process.pid();
	}

	/** SIGKILL: no shutdown hook runs, the embedded PostgreSQL is left behind. */
	public void kill() throws InterruptedException {
		process.destroyForcibly();
		process.waitFor(30, TimeUnit.SECONDS);
	}

	/** SIGTERM: a graceful shutdown; returns the exit code. */
	public int stop() throws InterruptedException {
		process.destroy();
		if (!process.waitFor(60, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException("node did not stop within 60 s of SIGTERM");
		}
		return process.exitValue();
	}

	@Override
	public void close() throws InterruptedException {
		if (process.isAlive()) {
			stop();
		}
	}

	private static int awaitHealthy(Process process, Path log, long logStart, Duration timeout) throws IOException {
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		long deadline = System.nanoTime() + timeout.toNanos();
		int port = 0;
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IllegalStateException("node exited with " + process.exitValue() + " before it was healthy");
			}
			if (port == 0) {
				port = boundPort(log, logStart);
			}
			if (port != 0 && healthy(http, port)) {
				return port;
			}
			sleep(200);
		}
		process.destroyForcibly();
		throw new IllegalStateException("node was not healthy within " + timeout
				+ (port == 0 ? "; its log never said which port it bound" : " on port " + port));
	}

	/** The port in this run's "Tomcat started on port N (http)" line, or 0 before it. */
	private static int boundPort(Path log, long logStart) throws IOException {
		try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
			file.seek(logStart);
			byte[] run = new byte[(int) (file.length() - logStart)];
			file.readFully(run);
			Matcher started = TOMCAT_STARTED.matcher(new String(run, StandardCharsets.UTF_8));
			return started.find() ? Integer.parseInt(started.group(1)) : 0;
		}
	}

	private static boolean healthy(HttpClient http, int port) {
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:%d/actuator/health".formatted(port)))
			.timeout(Duration.ofSeconds(2))
			.build();
		try {
			HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200 && response.body().contains("\"UP\"");
		}
		catch (IOException ex) {
			// not ready yet
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
