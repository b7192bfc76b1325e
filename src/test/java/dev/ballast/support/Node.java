package dev.ballast.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A registry node run from the packaged jar as its own process, as operators run it. */
public final class Node implements AutoCloseable {

	private final Process process;

	private final int port;

	private final Duration startup;

	private Node(Process process, int port, Duration startup) {
		this.process = process;
		this.port = port;
		this.startup = startup;
	}

	/**
	 * Starts {@code java -jar} on a free loopback port and waits (at most 120 s) until
	 * its health endpoint answers UP.
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
		int port = freePort();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(jvmOptions);
		command.addAll(List.of("-jar", jar, "--server.port=" + port, "--server.address=127.0.0.1",
				"--ballast.data-dir=" + dataDir));
		// A test may give its own bootstrap token (or an empty one, for a generated
		// token).
		if (Stream.of(extraArgs).noneMatch(arg -> arg.startsWith("--BALLAST_BOOTSTRAP_ADMIN_TOKEN="))) {
			command.add("--" + Admin.bootstrapProperty());
		}
		command.addAll(List.of(extraArgs));
		long started = System.nanoTime();
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			Node node = new Node(process, port, Duration.ZERO);
			node.awaitHealthy(Duration.ofSeconds(120));
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

	private void awaitHealthy(Duration timeout) {
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:%d/actuator/health".formatted(port)))
			.timeout(Duration.ofSeconds(2))
			.build();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				throw new IllegalStateException("node exited with " + process.exitValue() + " before it was healthy");
			}
			try {
				HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200 && response.body().contains("\"UP\"")) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			sleep(200);
		}
		process.destroyForcibly();
		throw new IllegalStateException("node was not healthy within " + timeout);
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

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
