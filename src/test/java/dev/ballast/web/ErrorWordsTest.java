package dev.ballast.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every refusal, whoever makes it (a controller, Spring MVC, the security filters,
 * Tomcat's parser), is a problem detail with a Ballast type that says what to do, in the
 * user's words rather than a parser's.
 */
@RegistryTest
class ErrorWordsTest {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Map<String, String> JSON_BODY = Map.of("Content-Type", "application/json");

	@LocalServerPort
	int port;

	private Api api;

	private String instance;

	@BeforeEach
	void register() {
		api = Api.on(port);
		instance = "/v1/services/%s/instances/a".formatted(Names.service("words"));
		assertThat(api.put(instance, Registration.at("h", 80)).status()).isEqualTo(201);
	}

	@Test
	void anUnknownPathIsNotFound() {
		JsonNode problem = problem(send("GET", "/v1/nothing-here", null, Map.of()), 404, "not-found");
		assertThat(problem.get("detail").asString()).contains("serves nothing at /v1/nothing-here", "/v3/api-docs");
	}

	@Test
	void anUnregisteredInstanceIsNotFound() {
		JsonNode problem = problem(send("GET", instance + "x", null, Map.of()), 404, "not-found");
		assertThat(problem.get("detail").asString()).contains("is not registered");
	}

	@Test
	void anUnservedMethodNamesTheAllowedOnes() {
		HttpResponse<String> response = send("POST", instance, "{}", JSON_BODY);
		JsonNode problem = problem(response, 405, "method-not-allowed");
		assertThat(problem.get("detail").asString()).contains("POST", "use DELETE, GET, HEAD, PATCH, PUT");
		assertThat(response.headers().firstValue("Allow")).hasValue("DELETE, GET, HEAD, PATCH, PUT");
	}

	@Test
	void anUnacceptableAcceptNamesTheOfferedTypes() {
		JsonNode problem = problem(send("GET", instance, null, Map.of("Accept", "text/csv")), 406, "not-acceptable");
		assertThat(problem.get("detail").asString()).contains("application/json", "got Accept: text/csv");
	}

	@Test
	void aStaleIfMatchIsAPreconditionProblem() {
		JsonNode problem = problem(
				send("PATCH", instance, "{}", Map.of("Content-Type", "application/json", "If-Match", "\"999\"")), 412,
				"precondition-failed");
		assertThat(problem.get("detail").asString()).contains("changed since \"999\"");
	}

	@Test
	void anUnsupportedContentTypeSaysWhichToSend() {
		JsonNode put = problem(send("PUT", instance, "{}", Map.of("Content-Type", "text/plain")), 415,
				"unsupported-media-type");
		assertThat(put.get("detail").asString())
			.isEqualTo("send Content-Type: application/json; got Content-Type text/plain");
		JsonNode patch = problem(send("PATCH", instance, "{}", Map.of("Content-Type", "text/plain")), 415,
				"unsupported-media-type");
		assertThat(patch.get("detail").asString())
			.startsWith("send Content-Type: application/merge-patch+json or application/json;");
	}

	@Test
	void malformedJsonIsDescribedWithoutParserInternals() {
		for (String body : new String[] { "{\"address\":", "{\"address\":\"h\"", "{\"a\" 1}", "{'a':1}", "[1,2" }) {
			JsonNode problem = problem(send("PUT", instance, body, JSON_BODY), 400, "malformed-json");
			String detail = problem.get("detail").asString();
			assertThat(detail).as(body)
				.startsWith("the body is not valid JSON: ")
				.containsPattern("at line 1, column \\d+$")
				.doesNotContain("Source", "REDACTED", "StreamReadFeature", "jackson", "marker");
		}
	}

	@Test
	void aTimestampFieldSaysWhatATimestampIs() {
		JsonNode problem = problem(
				send("POST", instance + "/maintenance", "{\"reason\":\"x\",\"until\":\"tomorrow\"}", JSON_BODY), 422,
				"invalid-request");
		assertThat(problem.get("detail").asString())
			.isEqualTo("until must be an RFC 3339 timestamp from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, such as "
					+ "2026-12-01T12:00:00Z; got the string \"tomorrow\"");
	}

	@Test
	void aBooleanFieldSaysTrueOrFalse() {
		JsonNode problem = problem(
				send("POST", instance + "/maintenance", "{\"reason\":\"x\",\"force\":\"yes\"}", JSON_BODY), 422,
				"invalid-request");
		assertThat(problem.get("detail").asString()).startsWith("force must be true or false; got");
	}

	@Test
	void theQuotedEtagIsABlockingQueryIndex() throws IOException {
		HttpResponse<String> first = send("GET", instance, null, Map.of());
		String etag = first.headers().firstValue("ETag").orElseThrow();
		assertThat(etag).startsWith("\"").endsWith("\"");
		// Percent-encoded, weak, and sent raw as a user pastes it.
		HttpResponse<String> encoded = send("GET", instance + "?wait=1ms&index=%22" + etag.replace("\"", "") + "%22",
				null, Map.of());
		assertThat(encoded.statusCode()).isEqualTo(200);
		assertThat(encoded.headers().firstValue("ETag")).hasValue(etag);
		assertThat(send("GET", instance + "?wait=1ms&index=W/%22" + etag.replace("\"", "") + "%22", null, Map.of())
			.statusCode()).isEqualTo(200);
		String raw = exchange("GET " + instance + "?wait=1ms&index=" + etag + " HTTP/1.1");
		assertThat(raw).startsWith("HTTP/1.1 200 ").contains(etag);
	}

	@Test
	void aBadCharacterInTheIndexIsAProblem() throws IOException {
		JsonNode problem = problem(send("GET", instance + "?index=%22", null, Map.of()), 400, "bad-parameter");
		assertThat(problem.get("detail").asString()).startsWith("index must be a revision");
		for (String index : new String[] { "\"", "\"14", "{14}", "1|2", "<1>" }) {
			String raw = exchange("GET " + instance + "?index=" + index + " HTTP/1.1");
			assertThat(raw).as(index)
				.startsWith("HTTP/1.1 400 ")
				.containsIgnoringCase("Content-Type: application/problem+json")
				.contains("https://ballast.dev/problems/bad-parameter");
		}
	}

	@Test
	void anUndecodableQueryIsAProblem() throws IOException {
		for (String index : new String[] { "%zz", "%", "%C0" }) {
			String raw = exchange("GET " + instance + "?index=" + index + " HTTP/1.1");
			assertThat(raw).as(index)
				.startsWith("HTTP/1.1 400 ")
				.containsIgnoringCase("Content-Type: application/problem+json")
				.contains("https://ballast.dev/problems/bad-parameter", "the query string cannot be decoded",
						"every % must start", "%22");
		}
	}

	private HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) {
		return api.raw(method, path, body, headers, Duration.ofSeconds(10));
	}

	private static JsonNode problem(HttpResponse<String> response, int status, String type) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		JsonNode problem = JSON.readTree(response.body());
		assertThat(problem.get("type").asString()).isEqualTo("https://ballast.dev/problems/" + type);
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		return problem;
	}

	/** One request written byte for byte, as no Java client would send it. */
	private String exchange(String requestLine) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			OutputStream out = socket.getOutputStream();
			out.write((requestLine + "\r\nHost: 127.0.0.1\r\nAuthorization: " + Admin.HEADER
					+ "\r\nConnection: close\r\n\r\n")
				.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			InputStream in = socket.getInputStream();
			return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

}
