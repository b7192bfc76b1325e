package dev.ballast.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plain HTTP client for end-to-end tests. Every response it receives is checked against
 * the committed OpenAPI document before the test sees it.
 */
public final class Api {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final String base;

	private final boolean contractChecked;

	private final String token;

	private Api(String base, boolean contractChecked, String token) {
		this.base = base;
		this.contractChecked = contractChecked;
		this.token = token;
	}

	/** A client sending the tests' admin token. */
	public static Api on(int port) {
		return new Api("http://127.0.0.1:" + port, true, Admin.TOKEN);
	}

	/** The same client with another token, or with none when {@code token} is null. */
	public Api as(String token) {
		return new Api(base, contractChecked, token);
	}

	/**
	 * A client that does not check responses against the contract, for the contract test
	 * itself.
	 */
	public static Api unchecked(int port) {
		return new Api("http://127.0.0.1:" + port, false, Admin.TOKEN);
	}

	public Reply get(String path) {
		return send("GET", path, null, null);
	}

	public Reply put(String path, String json) {
		return send("PUT", path, json, null);
	}

	public Reply put(String path, Registration registration) {
		return put(path, registration.json());
	}

	public Reply patch(String path, String json) {
		return send("PATCH", path, json, null);
	}

	public Reply patch(String path, String json, String ifMatch) {
		return send("PATCH", path, json, ifMatch);
	}

	public Reply delete(String path) {
		return send("DELETE", path, null, null);
	}

	public Reply send(String method, String path, String json, String ifMatch) {
		return sendWith(method, path, json,
				ifMatch == null ? java.util.Map.of() : java.util.Map.of("If-Match", ifMatch));
	}

	/** A request with extra headers. */
	public Reply sendWith(String method, String path, String json, java.util.Map<String, String> headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
			.timeout(Duration.ofSeconds(30))
			.method(method,
					json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		if (token != null && !headers.containsKey("Authorization")) {
			request.header("Authorization", "Bearer " + token);
		}
		headers.forEach(request::header);
		try {
			HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
			Reply reply = new Reply(response, parse(response));
			if (contractChecked) {
				OpenApiContract.load()
					.check(method, URI.create(base + path).getPath(), response.statusCode(),
							reply.contentType().orElse(null), reply.json());
			}
			return reply;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A request exactly as given: the body as raw text (no Content-Type unless among
	 * {@code headers}), answered within {@code timeout} or failed, and not checked
	 * against the contract, for tests that send what no client should. The client's token
	 * is sent unless {@code headers} has an Authorization of its own.
	 */
	public HttpResponse<String> raw(String method, String path, String body, java.util.Map<String, String> headers,
			Duration timeout) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
			.timeout(timeout)
			.method(method,
					body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
		if (token != null && !headers.containsKey("Authorization")) {
			request.header("Authorization", "Bearer " + token);
		}
		headers.forEach(request::header);
		try {
			return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(method + " " + path + " got no answer: " + ex, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static JsonNode parse(HttpResponse<String> response) {
		String type = response.headers().firstValue("Content-Type").orElse("");
		return type.contains("json") && !response.body().isEmpty() ? JSON.readTree(response.body()) : null;
	}

	/** A response, with its body parsed when it is JSON. */
	public record Reply(HttpResponse<String> response, JsonNode json) {

		public int status() {
			return response.statusCode();
		}

		public Optional<String> header(String name) {
			return response.headers().firstValue(name);
		}

		public Optional<String> contentType() {
			return header("Content-Type");
		}

		public String body() {
			return response.body();
		}

	}

}
