package dev.ballast.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console is found at the root and at /console/, loads without a token, and its
 * scripts are served as JavaScript (browsers refuse a module script of any other type),
 * every module any other imports among them (pages are imported when first shown, so a
 * broken import would fail only there).
 */
@RegistryTest
class ConsolePagesTest {

	private static final Path CONSOLE = Path.of("src/main/resources/static/console");

	@LocalServerPort
	int port;

	private final HttpClient http = HttpClient.newBuilder()
		.connectTimeout(Duration.ofSeconds(5))
		.followRedirects(HttpClient.Redirect.NEVER)
		.build();

	@Test
	void theRootAndTheBarePathRedirectToTheConsole() throws Exception {
		for (String path : new String[] { "/", "/console" }) {
			HttpResponse<String> answer = get(path);
			assertThat(answer.statusCode()).as(path).isEqualTo(302);
			assertThat(answer.headers().firstValue("Location")).as(path)
				.hasValueSatisfying(location -> assertThat(location).endsWith("/console/"));
		}
	}

	@Test
	void thePageAndItsModulesLoadWithoutAToken() throws Exception {
		HttpResponse<String> page = get("/console/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type"))
			.hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
		assertThat(page.body()).contains("<script type=\"module\" src=\"console.js\">");
		List<String> modules = modules();
		assertThat(modules).contains("console.js", "api.js", "dom.js", "dialogs.js", "overview.js", "service.js");
		for (String module : modules) {
			HttpResponse<String> script = get("/console/" + module);
			assertThat(script.statusCode()).as(module).isEqualTo(200);
			assertThat(script.headers().firstValue("Content-Type")).as(module)
				.hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
		}
		assertThat(get("/console/missing.js").statusCode()).isEqualTo(404);
	}

	@Test
	void everyModuleImportedIsOneOfTheConsoles() throws Exception {
		Pattern imported = Pattern.compile("(?:from|import\\()\\s*'\\./([^']+)'");
		Set<String> named = new TreeSet<>();
		for (String module : modules()) {
			Matcher found = imported.matcher(Files.readString(CONSOLE.resolve(module)));
			while (found.find()) {
				named.add(found.group(1));
			}
		}
		assertThat(named).contains("overview.js", "tokens.js").isSubsetOf(modules());
	}

	private static List<String> modules() throws IOException {
		try (Stream<Path> files = Files.list(CONSOLE)) {
			return files.map(file -> file.getFileName().toString())
				.filter(name -> name.endsWith(".js"))
				.sorted()
				.toList();
		}
	}

	private HttpResponse<String> get(String path) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
