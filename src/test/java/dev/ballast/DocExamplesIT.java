package dev.ballast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```sh} block of README.md and docs/*.md, run as a newcomer would run it:
 * in file order, one bash session per file, against a fresh registry started from the
 * packaged jar with the README's own command line, in an empty directory (so
 * {@code data/admin.token} is where the README says). A block that stops answering as
 * written fails the build. The convention is written in docs/README.md.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocExamplesIT {

	/** The port the README promises; reserved for this test on our machines. */
	private static final int PORT = 8080;

	private static final Pattern OPENING = Pattern.compile("^```(\\S*)\\s*$");

	/** The README's way to start the packaged jar, whose arguments this test uses. */
	private static final Pattern START = Pattern.compile("^java -jar target/ballast-\\*\\.jar (.+)$",
			Pattern.MULTILINE);

	private static final Duration PER_FILE = Duration.ofMinutes(5);

	@TempDir
	static Path workDir;

	private Process registry;

	private final Path logs = Path.of("target", "doc-examples");

	@BeforeAll
	void startTheRegistryAsTheReadmeSays() throws Exception {
		assertThat(onPath("curl")).as("the examples need curl; install it (apt-get install -y curl)").isTrue();
		assertThat(portFree(PORT)).as("port %d must be free: the README's examples use it", PORT).isTrue();
		Files.createDirectories(logs);
		String jar = System.getProperty("ballast.jar");
		assertThat(jar).as("system property ballast.jar (run with ./mvnw verify)").isNotNull();
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar));
		command.addAll(List.of(readmeStartArguments().split(" +")));
		ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
			.redirectErrorStream(true)
			.redirectOutput(logs.resolve("registry.log").toFile());
		// The README's admin token is the generated one in data/admin.token.
		builder.environment().remove("BALLAST_BOOTSTRAP_ADMIN_TOKEN");
		registry = builder.start();
		// Seven builds on two cores once took three minutes to start it.
		awaitHealthy(Duration.ofMinutes(6));
	}

	@AfterAll
	void stopTheRegistry() throws InterruptedException {
		if (registry != null && registry.isAlive()) {
			registry.destroy();
			if (!registry.waitFor(60, TimeUnit.SECONDS)) {
				registry.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
			}
		}
	}

	@Test
	void everyShellFenceIsEitherRunOrSaysItIsNot() throws IOException {
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page);
			boolean inside = false;
			for (int i = 0; i < lines.size(); i++) {
				Matcher opening = OPENING.matcher(lines.get(i));
				if (!inside && opening.matches()) {
					assertThat(opening.group(1))
						.as("%s:%d: a shell fence is ```sh (run by this test) or ```text (not run)", page, i + 1)
						.isNotIn("bash", "shell", "console", "zsh");
				}
				if (lines.get(i).startsWith("```")) {
					inside = !inside;
				}
			}
			assertThat(inside).as("%s: every fence is closed", page).isFalse();
		}
	}

	@TestFactory
	Stream<DynamicTest> everyExampleAnswersAsWritten() throws IOException {
		List<Path> pages = pages();
		assertThat(blocks(Path.of("README.md"))).as("README.md's first session").isNotEmpty();
		return pages.stream()
			.filter(page -> !blocks(page).isEmpty())
			.map(page -> DynamicTest.dynamicTest(page.toString(), () -> runPage(page)));
	}

	private void runPage(Path page) throws Exception {
		List<Block> blocks = blocks(page);
		StringBuilder script = new StringBuilder(
				"""
						set -euo pipefail
						shopt -s expand_aliases
						BALLAST_DOC_BLOCK=none
						trap 'status=$?; if [ "$status" -ne 0 ]; then echo "DocExamplesIT: the block at $BALLAST_DOC_BLOCK failed with exit code $status" >&2; fi' EXIT
						""");
		for (Block block : blocks) {
			script.append("BALLAST_DOC_BLOCK='%s:%d'\n".formatted(page, block.line()));
			script.append("echo \"### %s:%d\"\n".formatted(page, block.line()));
			script.append(block.text());
		}
		Path file = workDir.resolve(page.getFileName() + ".sh");
		Files.writeString(file, script);
		Path log = logs.resolve(page.toString().replace('/', '_') + ".log");
		long started = System.nanoTime();
		Process bash = new ProcessBuilder("bash", file.toString()).directory(workDir.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		boolean ended = bash.waitFor(PER_FILE.toSeconds(), TimeUnit.SECONDS);
		if (!ended) {
			bash.descendants().forEach(ProcessHandle::destroyForcibly);
			bash.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		String output = Files.readString(log, StandardCharsets.UTF_8);
		assertThat(ended).as("%s's examples ended within %s; output:%n%s", page, PER_FILE, tail(output)).isTrue();
		assertThat(bash.exitValue()).as("%s's examples; output (all of it in %s):%n%s", page, log, tail(output))
			.isZero();
		System.out.printf("DocExamplesIT: %s, %d blocks in %d ms%n", page, blocks.size(),
				Duration.ofNanos(System.nanoTime() - started).toMillis());
	}

	/** README.md first, then docs/*.md by name; the copied design docs are not run. */
	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
		try (Stream<Path> docs = Files.list(Path.of("docs"))) {
			docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	private record Block(int line, String text) {
	}

	/** The ```sh blocks of a page, with the line each opens on. */
	static List<Block> blocks(Path page) {
		List<String> lines;
		try {
			lines = Files.readAllLines(page);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Block> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher opening = OPENING.matcher(lines.get(i));
			if (!opening.matches()) {
				continue;
			}
			int opened = i;
			StringBuilder text = new StringBuilder();
			for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
				text.append(lines.get(i)).append('\n');
			}
			if (opening.group(1).equals("sh")) {
				blocks.add(new Block(opened + 1, text.toString()));
			}
		}
		return blocks;
	}

	private static String readmeStartArguments() throws IOException {
		Matcher start = START.matcher(Files.readString(Path.of("README.md")));
		assertThat(start.find()).as("README.md says how to start the packaged jar (java -jar target/ballast-*.jar …)")
			.isTrue();
		String arguments = start.group(1).strip();
		assertThat(arguments).contains("--server.port=" + PORT).contains("--ballast.data-dir=./data");
		return arguments;
	}

	private void awaitHealthy(Duration timeout) throws InterruptedException {
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
		HttpRequest health = HttpRequest.newBuilder(URI.create("http://localhost:%d/actuator/health".formatted(PORT)))
			.timeout(Duration.ofSeconds(2))
			.build();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			assertThat(registry.isAlive()).as("the registry is running; see %s", logs.resolve("registry.log")).isTrue();
			try {
				HttpResponse<String> answer = http.send(health, HttpResponse.BodyHandlers.ofString());
				if (answer.statusCode() == 200 && answer.body().contains("\"UP\"")) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			Thread.sleep(200);
		}
		throw new AssertionError("the registry was not healthy within " + timeout);
	}

	private static boolean portFree(int port) {
		try (ServerSocket socket = new ServerSocket(port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean onPath(String program) {
		String path = System.getenv("PATH");
		return path != null && Stream.of(path.split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
	}

	private static String tail(String output) {
		return output.length() <= 4000 ? output : "…" + output.substring(output.length() - 4000);
	}

}
