package dev.ballast.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console is found at the root and at /console/, loads without a token, and its
 * scripts are served as JavaScript (browsers refuse a module script of any other type).
 */
@RegistryTest
class ConsolePagesTest {

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
		for (String module : new String[] { "console.js", "api.js", "dom.js", "dialogs.js", "overview.js",
				"service.js" }) {
			HttpResponse<String> script = get("/console/" + module);
			assertThat(script.statusCode()).as(module).isEqualTo(200);
			assertThat(script.headers().firstValue("Content-Type")).as(module)
				.hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
		}
		assertThat(get("/console/missing.js").statusCode()).isEqualTo(404);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
