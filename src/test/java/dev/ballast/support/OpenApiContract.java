package dev.ballast.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The committed {@code openapi/ballast.json}, used to check that every response a test
 * receives is documented and matches its schema. A weight served as a string, a missing
 * field or an undocumented status code fails the test that received it.
 */
public final class OpenApiContract {

	public static final Path DOCUMENT = Path.of("openapi", "ballast.json");

	private static OpenApiContract instance;

	private final JsonNode document;

	private final SchemaRegistry schemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

	private OpenApiContract(JsonNode document) {
		this.document = document;
	}

	public static synchronized OpenApiContract load() {
		if (instance == null) {
			try {
				instance = new OpenApiContract(JsonMapper.builder().build().readTree(Files.readString(DOCUMENT)));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return instance;
	}

	/**
	 * @param method HTTP method
	 * @param path request path without the query
	 * @param status response status
	 * @param contentType the response's media type, or {@code null} when it had no body
	 * @param body the response body, or {@code null}
	 */
	public void check(String method, String path, int status, String contentType, JsonNode body) {
		JsonNode operation = operation(method, path);
		JsonNode response = operation.path("responses").path(Integer.toString(status));
		if (response.isMissingNode()) {
			fail("%s %s answered %d, which openapi/ballast.json does not document", method, path, status);
		}
		if (body == null) {
			return;
		}
		String mediaType = contentType.split(";")[0].strip();
		JsonNode schema = response.path("content").path(mediaType).path("schema");
		if (schema.isMissingNode()) {
			schema = response.path("content").path("*/*").path("schema");
		}
		if (schema.isMissingNode()) {
			fail("%s %s answered %d with %s, which openapi/ballast.json does not document", method, path, status,
					mediaType);
		}
		List<Error> errors = compile(schema).validate(body);
		assertThat(errors).as("%s %s -> %d body %s against %s", method, path, status, body, schema).isEmpty();
	}

	private Schema compile(JsonNode schema) {
		ObjectNode root = ((ObjectNode) schema).deepCopy();
		root.set("components", document.path("components"));
		return schemas.getSchema(root);
	}

	private JsonNode operation(String method, String path) {
		for (Map.Entry<String, JsonNode> entry : document.path("paths").properties()) {
			if (template(entry.getKey()).matcher(path).matches()) {
				JsonNode operation = entry.getValue().path(method.toLowerCase());
				if (!operation.isMissingNode()) {
					return operation;
				}
			}
		}
		return fail("%s %s is not in openapi/ballast.json", method, path);
	}

	private static Pattern template(String pathTemplate) {
		return Pattern.compile(Pattern.quote(pathTemplate).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q"));
	}

}
