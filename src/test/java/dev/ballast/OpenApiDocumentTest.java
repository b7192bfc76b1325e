package dev.ballast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.ballast.support.Api;
import dev.ballast.support.OpenApiContract;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document the registry serves is the one committed in
 * {@code openapi/ballast.json}, and it types every weight as an integer in range.
 */
@RegistryTest
class OpenApiDocumentTest {

	static final String REGENERATE = "./mvnw verify -Dtest=OpenApiDocumentTest -Dballast.openapi.update=true -Dsurefire.failIfNoSpecifiedTests=false -DskipITs";

	private static final JsonMapper JSON = JsonMapper.builder()
		.enable(SerializationFeature.INDENT_OUTPUT)
		.enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
		.build();

	private static final Path SERVED = Path.of("target", "openapi-served.json");

	@LocalServerPort
	int port;

	@Test
	void committedDocumentMatchesWhatTheRegistryServes() throws IOException {
		Api.Reply reply = Api.unchecked(port).get("/v3/api-docs");
		assertThat(reply.status()).isEqualTo(200);
		String served = JSON.writeValueAsString(JSON.readTree(reply.body())) + "\n";
		if (Boolean.getBoolean("ballast.openapi.update")) {
			Files.createDirectories(OpenApiContract.DOCUMENT.getParent());
			Files.writeString(OpenApiContract.DOCUMENT, served);
		}
		String committed = Files.exists(OpenApiContract.DOCUMENT) ? Files.readString(OpenApiContract.DOCUMENT) : "";
		if (!committed.equals(served)) {
			Files.writeString(SERVED, served);
		}
		assertThat(committed.equals(served))
			.as("openapi/ballast.json differs from what the registry serves (written to %s); regenerate it with: %s",
					SERVED, REGENERATE)
			.isTrue();
	}

	@Test
	void everyWeightInTheDocumentIsABoundedInteger() throws IOException {
		JsonNode schemas = JSON.readTree(Files.readString(OpenApiContract.DOCUMENT)).path("components").path("schemas");
		assertThat(schemas.path("Instance").path("properties").path("weight").path("type").asString())
			.isEqualTo("integer");
		for (String schema : new String[] { "Instance", "Registration", "InstanceEdit" }) {
			JsonNode weight = schemas.path(schema).path("properties").path("weight");
			assertThat(weight.path("type").asString()).as(schema + ".weight type").isEqualTo("integer");
			assertThat(weight.path("minimum").asInt()).as(schema + ".weight minimum").isZero();
			assertThat(weight.path("maximum").asInt()).as(schema + ".weight maximum").isEqualTo(10000);
		}
		JsonNode effective = schemas.path("Instance").path("properties").path("effectiveWeight");
		assertThat(effective.path("type").asString()).isEqualTo("integer");
		assertThat(effective.path("maximum").asInt()).isEqualTo(10000);
		assertThat(schemas.path("Instance").path("required").toString()).contains("\"weight\"", "\"effectiveWeight\"");
	}

}
