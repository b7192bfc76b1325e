package dev.ballast.instance;

import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.ballast.support.Admin;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What real clients send: chunked bodies, the JDK client's h2c upgrade headers, and
 * bodies too large to accept.
 */
@RegistryTest
class RequestHabitsTest {

	@LocalServerPort
	int port;

	@Test
	void acceptsAChunkedBody() throws Exception {
		String service = Names.service("chunked");
		byte[] body = Registration.at("h", 80).weight(7).json().getBytes();
		HttpRequest request = authorized(uri("/v1/services/%s/instances/a".formatted(service)))
			.header("Content-Type", "application/json")
			// No known length: the client sends it chunked.
			.PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)))
			.build();
		HttpResponse<String> response = http(HttpClient.Version.HTTP_1_1).send(request,
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(201);
		assertThat(response.body()).contains("\"weight\":7");
	}

	@Test
	void answersRequestsThatOfferAnH2cUpgrade() throws Exception {
		String service = Names.service("h2c");
		HttpClient http2 = http(HttpClient.Version.HTTP_2);
		HttpResponse<String> put = http2.send(authorized(uri("/v1/services/%s/instances/a".formatted(service)))
			.header("Content-Type", "application/json")
			.PUT(HttpRequest.BodyPublishers.ofString(Registration.at("h", 80).json()))
			.build(), HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> get = http2.send(
				authorized(uri("/v1/services/%s/instances".formatted(service))).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(put.statusCode()).isEqualTo(201);
		assertThat(put.version()).as("the upgrade is declined, the request answered")
			.isEqualTo(HttpClient.Version.HTTP_1_1);
		assertThat(get.statusCode()).isEqualTo(200);
		assertThat(get.body()).contains("\"id\":\"a\"");
	}

	/**
	 * The headers the JDK client adds to its first request on a connection, sent exactly:
	 * with a body of known length and with a chunked one.
	 */
	@Test
	void answersRequestsCarryingUpgradeAndHttp2SettingsHeaders() throws Exception {
		String service = Names.service("h2c-raw");
		String upgrade = "Authorization: " + Admin.HEADER
				+ "\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
				+ "HTTP2-Settings: AAEAAEAAAAIAAAAAAAMAAAAAAAQBAAAAAAUAAEAAAAYABgAA\r\n";
		String body = Registration.at("h", 80).weight(3).json();
		assertThat(statusLine(
				"PUT /v1/services/%s/instances/a HTTP/1.1\r\nHost: 127.0.0.1\r\n%s".formatted(service, upgrade)
						+ "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body))
			.isEqualTo("HTTP/1.1 201 ");
		assertThat(statusLine(
				"PUT /v1/services/%s/instances/b HTTP/1.1\r\nHost: 127.0.0.1\r\n%s".formatted(service, upgrade)
						+ "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
						+ Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n"))
			.isEqualTo("HTTP/1.1 201 ");
		HttpResponse<String> listed = http(HttpClient.Version.HTTP_1_1).send(
				authorized(uri("/v1/services/%s/instances".formatted(service))).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(listed.body()).contains("\"id\":\"a\"", "\"id\":\"b\"", "\"weight\":3");
	}

	/** Sends a request over a plain socket and returns the start of its status line. */
	private String statusLine(String request) throws Exception {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
			return new String(socket.getInputStream().readNBytes(13), StandardCharsets.US_ASCII);
		}
	}

	@Test
	void refusesBodiesOver64KiBWith413() throws Exception {
		String service = Names.service("large");
		String huge = Registration.at("h", 80).metadata("k", "x".repeat(70_000)).json();
		HttpResponse<String> declared = http(HttpClient.Version.HTTP_1_1)
			.send(authorized(uri("/v1/services/%s/instances/a".formatted(service)))
				.header("Content-Type", "application/json")
				.PUT(HttpRequest.BodyPublishers.ofString(huge))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(declared.statusCode()).isEqualTo(413);
		assertThat(declared.body()).contains("65536");
		HttpResponse<String> chunked = http(HttpClient.Version.HTTP_1_1)
			.send(authorized(uri("/v1/services/%s/instances/a".formatted(service)))
				.header("Content-Type", "application/json")
				.PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge.getBytes())))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(chunked.statusCode()).isEqualTo(413);
		assertThat(http(HttpClient.Version.HTTP_1_1)
			.send(authorized(uri("/v1/services/%s/instances".formatted(service))).GET().build(),
					HttpResponse.BodyHandlers.ofString())
			.statusCode()).as("nothing was written").isEqualTo(404);
	}

	private static HttpRequest.Builder authorized(URI uri) {
		return HttpRequest.newBuilder(uri).header("Authorization", Admin.HEADER);
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + port + path);
	}

	private static HttpClient http(HttpClient.Version version) {
		return HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5)).build();
	}

}
