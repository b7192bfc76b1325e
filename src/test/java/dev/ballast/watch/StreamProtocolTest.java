package dev.ballast.watch;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.ballast.support.RegistryTest;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connector runs {@link StreamProtocol}, so every response (an event stream's among
 * them) keeps 2 KiB buffers, and a response many times larger still arrives whole.
 */
@RegistryTest
class StreamProtocolTest {

	@Autowired
	WebServerApplicationContext context;

	@Test
	void theConnectorSizesResponseBuffersToTheSocketBuffer() {
		Connector connector = ((TomcatWebServer) context.getWebServer()).getTomcat().getConnector();

		assertThat(connector.getProtocolHandler()).isInstanceOf(StreamProtocol.class);
		assertThat(connector.getProtocolHandler().getDesiredBufferSize()).isEqualTo(2048);
	}

	@Test
	void aResponseManyBuffersLongArrivesWhole() throws Exception {
		HttpResponse<String> response;
		try (HttpClient http = HttpClient.newHttpClient()) {
			response = http.send(HttpRequest
				.newBuilder(URI.create("http://127.0.0.1:" + context.getWebServer().getPort() + "/v3/api-docs"))
				.timeout(Duration.ofSeconds(30))
				.build(), HttpResponse.BodyHandlers.ofString());
		}

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body().length()).as("characters, against 2,048-byte buffers").isGreaterThan(20 * 2048);
		JsonNode document = JsonMapper.shared().readTree(response.body());
		assertThat(document.get("paths").has("/v1/services/{service}/watch")).isTrue();
	}

}
