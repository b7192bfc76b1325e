package dev.ballast.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Swagger UI as an operator uses it: tags in the order of the work, operations named so
 * they can be told apart and filtered, the fields that need help described, and a token
 * pasted with its prefix answered with what to do.
 */
@RegistryTest
class SwaggerUiTest {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@LocalServerPort
	int port;

	@Test
	void tagsComeInTheOrderAnOperatorWorks() {
		List<String> tags = new ArrayList<>();
		document().path("tags").forEach(tag -> tags.add(tag.path("name").asString()));
		List<String> known = tags.stream()
			.filter(List.of("Instances", "Services", "Release modes", "Watch", "Audit", "Tokens")::contains)
			.toList();
		assertThat(known).containsExactly("Instances", "Services", "Release modes", "Watch", "Audit", "Tokens");
		assertThat(tags.subList(0, 3)).containsExactly("Instances", "Services", "Release modes");
	}

	@Test
	void everyOperationHasAUniqueReadableId() {
		Set<String> ids = new HashSet<>();
		document().path("paths").properties().forEach(path -> path.getValue().properties().forEach(operation -> {
			String id = operation.getValue().path("operationId").asString();
			String where = operation.getKey().toUpperCase() + " " + path.getKey();
			// springdoc numbers clashing method names (list_2, get_1): name the operation
			// with @Operation(operationId = "verbNoun").
			assertThat(id).as(where).matches("[a-z]+([A-Z][a-z]+)+");
			assertThat(ids.add(id)).as("%s has the id %s of another operation", where, id).isTrue();
		}));
		assertThat(ids).contains("registerInstance", "listInstances", "listServices", "drainInstance", "watchService");
	}

	@Test
	void describesIfMatchAndTheAuthorizeDialog() {
		JsonNode document = document();
		JsonNode ifMatch = null;
		for (JsonNode parameter : document.path("paths")
			.path("/v1/services/{service}/instances/{id}")
			.path("patch")
			.path("parameters")) {
			if (parameter.path("name").asString().equals("If-Match")) {
				ifMatch = parameter;
			}
		}
		assertThat(ifMatch).as("the PATCH's If-Match parameter").isNotNull();
		assertThat(ifMatch.path("description").asString()).contains("ETag", "quotes included", "\"<revision>\"");
		assertThat(document.path("components").path("securitySchemes").path("bearer").path("description").asString())
			.contains("Paste the token alone");
		assertThat(
				document.path("paths").path("/v1/services/{service}/watch").path("get").path("description").asString())
			.contains("curl -N");
		assertThat(Api.unchecked(port).get("/v3/api-docs/swagger-config").json().path("filter").asString())
			.as("Swagger UI's filter box")
			.isEqualTo("true");
	}

	@Test
	void aRepeatedBearerIsExplained() {
		Api.Reply twice = Api.on(port)
			.sendWith("GET", "/v1/services", null, Map.of("Authorization", "Bearer " + Admin.HEADER));
		assertThat(twice.status()).isEqualTo(401);
		assertThat(twice.json().path("detail").asString()).contains("remove the repeated Bearer");

		Api.Reply unknown = Api.on(port)
			.sendWith("GET", "/v1/services", null, Map.of("Authorization", "Bearer blst_nothing"));
		assertThat(unknown.status()).isEqualTo(401);
		assertThat(unknown.json().path("detail").asString()).doesNotContain("Bearer Bearer");
	}

	/**
	 * Swagger UI pre-fills an operation's body with its first example (the examples come
	 * sorted by name): sent as shown, against a service whose instances carry the ids and
	 * metadata the examples name, each succeeds.
	 */
	@Test
	void theFirstExampleOfEveryOperationSucceedsAsShown() {
		Api api = Api.on(port);
		List<String> tried = new ArrayList<>();
		List<String> failed = new ArrayList<>();
		document().path("paths").properties().forEach(path -> path.getValue().properties().forEach(operation -> {
			JsonNode examples = operation.getValue()
				.path("requestBody")
				.path("content")
				.path("application/json")
				.path("examples");
			if (examples.isMissingNode() || examples.isEmpty()) {
				return;
			}
			String service = Names.service("swagger");
			for (int i = 0; i < 8; i++) {
				String id = i < 2 ? "10.0.0.%d:8080".formatted(5 + i) : "i" + i;
				api.put("/v1/services/%s/instances/%s".formatted(service, id),
						Registration.at("h", 80)
							.weight(100)
							.member("metadata", i < 4 ? "{\"color\":\"blue\"}" : "{\"color\":\"green\"}"));
			}
			String first = examples.properties().iterator().next().getKey();
			String body = examples.path(first).path("value").toString();
			String where = operation.getKey().toUpperCase() + " " + path.getKey() + " with \"" + first + "\"";
			String target = path.getKey()
				.replace("{service}", service)
				.replace("{id}", "10.0.0.5:8080")
				.replace("{subscriber}", "lb-1");
			Api.Reply reply = api.send(operation.getKey().toUpperCase(), target, body, null);
			if (reply.status() / 100 != 2) {
				failed.add("%s: %d %s".formatted(where, reply.status(), reply.body()));
			}
			tried.add(where);
		}));
		assertThat(tried).as("operations with examples").hasSizeGreaterThan(8);
		assertThat(failed).isEmpty();
	}

	private JsonNode document() {
		// The first document is built on demand, which takes long on a loaded machine.
		HttpResponse<String> reply = Api.unchecked(port)
			.raw("GET", "/v3/api-docs", null, Map.of(), Duration.ofMinutes(2));
		assertThat(reply.statusCode()).isEqualTo(200);
		return JSON.readTree(reply.body());
	}

}
