package dev.ballast.web;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body that stops before its declared length (the connection closed while it was read,
 * as a stopping node or a dying client leaves it) is answered 503 with Retry-After, never
 * 400 as if it were malformed: nothing was written and the request may be sent again. The
 * client here half-closes its side after part of the body, so the server sees the end of
 * the stream while it can still answer.
 */
@RegistryTest
class CutBodyTest {

	private static final String BODY = "{\"address\":\"10.0.0.1\",\"port\":80}";

	@LocalServerPort
	int port;

	@Test
	void aRegistrationCutOffOnItsShortWayIsUnavailableNotMalformed() throws IOException {
		assertCut(cut("PUT", "/v1/services/cut-short/instances/a", ""), "the short way");
		assertThat(Api.on(port).get("/v1/services/cut-short/instances/a").status()).as("nothing was written")
			.isEqualTo(404);
	}

	@Test
	void aBodyCutOffOnTheFullWayIsUnavailableNotMalformed() throws IOException {
		// A query sends the registration the full way, through Spring MVC's reading.
		assertCut(cut("PUT", "/v1/services/cut-full/instances/a?ignored=1", ""), "the full way");
		assertThat(Api.on(port).get("/v1/services/cut-full/instances/a").status()).as("nothing was written")
			.isEqualTo(404);
	}

	@Test
	void aBodyCutOffWhileItsIdempotencyKeyIsHashedIsUnavailableNotMalformed() throws IOException {
		assertCut(cut("POST", "/v1/services/cut-key/instances/a/drain", "Idempotency-Key: cut-1\r\n"),
				"the idempotency filter");
	}

	@Test
	void aWholeBodyThatIsNotJsonIsStillMalformed() throws IOException {
		String answer = send("PUT", "/v1/services/cut-whole/instances/a", "", "{\"address\":", 11);
		assertThat(answer).startsWith("HTTP/1.1 400").contains("malformed-json");
	}

	private String cut(String method, String path, String headers) throws IOException {
		return send(method, path, headers, BODY.substring(0, 20), 100);
	}

	private String send(String method, String path, String headers, String body, int declaredLength)
			throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			String request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + Admin.HEADER
					+ "\r\nContent-Type: application/json\r\n" + headers + "Content-Length: " + declaredLength
					+ "\r\n\r\n" + body;
			socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
			socket.getOutputStream().flush();
			socket.shutdownOutput();
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

	private static void assertCut(String answer, String way) {
		assertThat(answer).as(way).startsWith("HTTP/1.1 503");
		String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase(Locale.ROOT);
		assertThat(head).as(way).containsPattern("\r\nretry-after: [0-9]+\r\n");
		assertThat(answer).as(way).contains("\"type\":\"https://ballast.dev/problems/incomplete-body\"");
	}

}
