package dev.ballast.support;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client of Ballast's Consul-compatible surface for the end-to-end tests, as Consul's
 * clients call it (the token in {@code X-Consul-Token}). Every answer is checked before
 * the test sees it against what the real clients read: Consul's headers on every answer,
 * an {@code X-Consul-Index} of at least 1 on every list, the JSON shapes and field types
 * of Spring Cloud Consul's models ({@code HealthService}, {@code CatalogService},
 * {@code Check}) and of the npm client's use, Ballast's weight rules ({@code Meta.weight}
 * the canonical decimal of {@code Weights.Passing}, never "0"), plain-text refusals, and
 * never a 5xx.
 */
public final class Consul {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Pattern CANONICAL_WEIGHT = Pattern.compile("[1-9][0-9]{0,3}|10000");

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final String base;

	private final String token;

	private Consul(String base, String token) {
		this.base = base;
		this.token = token;
	}

	/** A client sending the tests' admin token as {@code X-Consul-Token}. */
	public static Consul on(int port) {
		return new Consul("http://127.0.0.1:" + port, Admin.TOKEN);
	}

	/** The same client with another token, or with none when {@code token} is null. */
	public Consul as(String other) {
		return new Consul(base, other);
	}

	public Answer get(String path) {
		return send("GET", path, null, Map.of(), false);
	}

	public Answer put(String path) {
		return send("PUT", path, null, Map.of(), false);
	}

	public Answer put(String path, String json) {
		return send("PUT", path, json, Map.of("Content-Type", "application/json"), false);
	}

	/** A PUT whose body is sent chunked, as Go's and Node's clients stream it. */
	public Answer putChunked(String path, String json) {
		return send("PUT", path, json, Map.of("Content-Type", "application/json"), true);
	}

	public Answer send(String method, String path, String body, Map<String, String> headers, boolean chunked) {
		HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
				: chunked
						? HttpRequest.BodyPublishers
							.ofInputStream(() -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)))
						: HttpRequest.BodyPublishers.ofString(body);
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
			.timeout(Duration.ofSeconds(60))
			.method(method, publisher);
		if (token != null && !headers.containsKey("Authorization")) {
			request.header("X-Consul-Token", token);
		}
		headers.forEach(request::header);
		HttpResponse<String> response;
		try {
			response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(method + " " + path + " got no answer: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		Answer answer = new Answer(response, parse(response));
		check(method, URI.create(base + path).getPath(), answer);
		return answer;
	}

	private static JsonNode parse(HttpResponse<String> response) {
		String type = response.headers().firstValue("Content-Type").orElse("");
		return type.contains("json") && !response.body().isEmpty() ? JSON.readTree(response.body()) : null;
	}

	private static void check(String method, String path, Answer answer) {
		String call = method + " " + path + " → " + answer.status() + " " + answer.body();
		assertThat(answer.status()).as("never a 5xx: %s", call).isLessThan(500);
		assertThat(answer.header("X-Consul-KnownLeader")).as(call).hasValue("true");
		assertThat(answer.header("X-Consul-LastContact")).as(call).hasValue("0");
		if (answer.header("Content-Type").orElse("").startsWith("application/problem+json")) {
			// Ballast's own refusal before the Consul surface is reached: a path it does
			// not serve (404, whatever the token), a missing or dead token (401), a token
			// whose role may not make the call (403).
			assertThat(answer.status()).as(call).isIn(401, 403, 404);
			assertThat(answer.json().get("status").intValue()).as(call).isEqualTo(answer.status());
			return;
		}
		if (answer.status() >= 400) {
			assertThat(answer.header("Content-Type")).as("Consul refuses in plain text: %s", call)
				.hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
			assertThat(answer.body()).as(call).isNotBlank();
			return;
		}
		if (method.equals("PUT")) {
			assertThat(answer.body()).as(call).isEmpty();
			return;
		}
		if (path.equals("/v1/status/leader")) {
			assertThat(answer.json().isString()).as(call).isTrue();
			return;
		}
		if (path.equals("/v1/agent/self")) {
			assertThat(answer.json().get("Config").get("Datacenter").isString()).as(call).isTrue();
			assertThat(answer.json().get("Config").get("NodeName").isString()).as(call).isTrue();
			return;
		}
		assertThat(answer.index()).as("X-Consul-Index of %s", call).isGreaterThanOrEqualTo(1);
		JsonNode body = answer.json();
		if (path.equals("/v1/agent/services")) {
			assertThat(body.isObject()).as(call).isTrue();
			body.properties().forEach(service -> agentService(call, service.getValue()));
			return;
		}
		if (path.startsWith("/v1/agent/service/")) {
			agentService(call, body);
			return;
		}
		if (path.equals("/v1/agent/checks")) {
			assertThat(body.isObject()).as(call).isTrue();
			body.properties().forEach(check -> {
				check(call, check.getValue());
				assertThat(check.getKey()).as(call).endsWith(check.getValue().get("CheckID").stringValue());
			});
			return;
		}
		if (path.equals("/v1/catalog/services")) {
			assertThat(body.isObject()).as(call).isTrue();
			body.properties().forEach(service -> {
				assertThat(service.getValue().isArray()).as(call).isTrue();
				service.getValue().forEach(tag -> assertThat(tag.isString()).as(call).isTrue());
			});
			return;
		}
		assertThat(body.isArray()).as(call).isTrue();
		for (JsonNode element : body) {
			if (path.startsWith("/v1/health/service/")) {
				JsonNode node = element.get("Node");
				strings(call, node, "Node", "Address", "Datacenter");
				JsonNode service = element.get("Service");
				strings(call, service, "ID", "Service", "Address");
				routable(call, service.get("Port"), service.get("Meta"), service.get("Weights"), service.get("Tags"));
				assertThat(element.get("Checks").isArray()).as(call).isTrue();
				element.get("Checks").forEach(check -> check(call, check));
			}
			else if (path.startsWith("/v1/catalog/service/")) {
				strings(call, element, "Node", "Address", "Datacenter", "ServiceID", "ServiceName", "ServiceAddress");
				routable(call, element.get("ServicePort"), element.get("ServiceMeta"), element.get("ServiceWeights"),
						element.get("ServiceTags"));
			}
			else if (path.startsWith("/v1/health/checks/")) {
				check(call, element);
			}
		}
	}

	/**
	 * What a consumer routes by: integers, and the one weight string that mirrors them.
	 */
	private static void routable(String call, JsonNode port, JsonNode meta, JsonNode weights, JsonNode tags) {
		assertThat(port.isInt()).as(call).isTrue();
		assertThat(tags.isArray()).as(call).isTrue();
		assertThat(meta.isObject()).as(call).isTrue();
		meta.properties().forEach(entry -> assertThat(entry.getValue().isString()).as(call).isTrue());
		assertThat(weights.get("Passing").isInt()).as(call).isTrue();
		assertThat(weights.get("Warning").isInt()).as(call).isTrue();
		int passing = weights.get("Passing").intValue();
		assertThat(passing).as("a listed instance is routable: %s", call).isBetween(1, 10000);
		assertThat(weights.get("Warning").intValue()).as(call).isEqualTo(passing);
		String weight = meta.get("weight").stringValue();
		assertThat(weight).as("Meta.weight of %s", call).matches(CANONICAL_WEIGHT);
		assertThat(Integer.parseInt(weight)).as(call).isEqualTo(passing);
	}

	private static void check(String call, JsonNode check) {
		strings(call, check, "Node", "CheckID", "Name", "Status", "ServiceID", "ServiceName", "Output");
		assertThat(check.get("Status").stringValue()).as(call).isIn("passing", "warning", "critical");
		assertThat(check.get("CheckID").stringValue()).as(call)
			.matches("service:" + java.util.regex.Pattern.quote(check.get("ServiceID").stringValue()) + "(:[1-9])?");
	}

	/** An element of Consul's agent services, as the Go and npm clients read it. */
	private static void agentService(String call, JsonNode service) {
		strings(call, service, "ID", "Service", "Address", "Datacenter");
		routable(call, service.get("Port"), service.get("Meta"), service.get("Weights"), service.get("Tags"));
		assertThat(service.get("EnableTagOverride").isBoolean()).as(call).isTrue();
	}

	private static void strings(String call, JsonNode object, String... fields) {
		assertThat(object).as(call).isNotNull();
		for (String field : fields) {
			assertThat(object.get(field)).as("%s in %s", field, call).isNotNull();
			assertThat(object.get(field).isString()).as("%s in %s", field, call).isTrue();
		}
	}

	/** An answer of the Consul surface, checked. */
	public record Answer(HttpResponse<String> response, JsonNode json) {

		public int status() {
			return response.statusCode();
		}

		public Optional<String> header(String name) {
			return response.headers().firstValue(name);
		}

		public String body() {
			return response.body();
		}

		/** {@code X-Consul-Index}, or 0 when absent. */
		public long index() {
			return header("X-Consul-Index").map(Long::parseLong).orElse(0L);
		}

		/** The listed instances of a health answer: id → effective weight. */
		public Map<String, Integer> weights() {
			Map<String, Integer> weights = new LinkedHashMap<>();
			json.forEach(entry -> weights.put(entry.get("Service").get("ID").stringValue(),
					entry.get("Service").get("Weights").get("Passing").intValue()));
			return weights;
		}

	}

}
