package dev.ballast.web;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import dev.ballast.support.Admin;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the servlet container refuses itself, before or around the registry's own code, is
 * a Ballast problem too: never Tomcat's HTML page, never Spring Boot's error JSON, never
 * {@code about:blank}.
 */
@RegistryTest
class ContainerProblemsTest {

	@LocalServerPort
	int port;

	@Test
	void headersLargerThanTheContainerReadsAreAProblem() throws IOException {
		String answer = send("GET /v1/services HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(20_000)
				+ "\r\nConnection: close\r\n\r\n");
		assertProblem(answer, "GET with a 20 kB header");
		assertThat(answer).contains("larger than this registry reads");
	}

	@Test
	void aQueryLongerThanTheContainerReadsIsAProblem() throws IOException {
		assertProblem(send("GET /v1/services?x=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
				+ "Connection: close\r\n\r\n"), "a 20 kB query");
	}

	@Test
	void requestLinesTomcatCannotReadAreProblems() throws IOException {
		for (String target : new String[] { "/v1/ser vices", "/v1/services\u0001", "/v1/%zz",
				"/v1/services/a%2Fb/instances", "/v1/services/a%00b/instances", "/v1/services/a\\b" }) {
			String answer = send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
			assertProblem(answer, target);
			assertThat(answer).as(target).contains("\"status\":400");
		}
	}

	@Test
	void pathsTheFirewallRefusesAreProblemsNamingWhatIsRefused() throws IOException {
		for (String target : new String[] { "/v1/services/%2e%2e/x", "/;x=1/v1/services", "//v1/services" }) {
			String answer = send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + Admin.HEADER
					+ "\r\nConnection: close\r\n\r\n");
			assertProblem(answer, target);
			assertThat(answer).as(target).contains("\"status\":400", "the path is refused");
		}
	}

	/** Found by an adversarial run: Tomcat's 501 was typed internal-error. */
	@Test
	void aTransferCodingTheContainerDoesNotImplementIsAProblemOfItsOwnKind() throws IOException {
		String answer = send("PUT /v1/services/x/instances/a HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "
				+ Admin.HEADER + "\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\n"
				+ "Connection: close\r\n\r\n");
		assertThat(answer).startsWith("HTTP/1.1 501")
			.contains("\"type\":\"https://ballast.dev/problems/not-implemented\"", "Transfer-Encoding")
			.doesNotContain("internal-error");
	}

	/** Found by an adversarial run: the refusal of 200 headers blamed the path. */
	@Test
	void moreHeadersThanTheContainerReadsAreAProblemThatSaysSo() throws IOException {
		StringBuilder headers = new StringBuilder();
		for (int i = 0; i < 200; i++) {
			headers.append("X-H").append(i).append(": v\r\n");
		}
		String answer = send(
				"GET /v1/services HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Connection: close\r\n\r\n");
		assertProblem(answer, "200 headers");
		assertThat(answer).contains("headers").doesNotContain("a path is");
	}

	@Test
	void anUnknownMethodIsAProblem() throws IOException {
		assertProblem(send("BLAH /v1/services HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + Admin.HEADER
				+ "\r\nConnection: close\r\n\r\n"), "BLAH");
	}

	@Test
	void theErrorPageAskedForDirectlyIsAProblem() throws IOException {
		assertProblem(send("GET /error HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + Admin.HEADER
				+ "\r\nAccept: text/html\r\nConnection: close\r\n\r\n"), "GET /error");
	}

	private static void assertProblem(String answer, String what) {
		int end = answer.indexOf("\r\n\r\n");
		assertThat(end).as("%s: an HTTP answer, got %s", what, answer).isPositive();
		String head = answer.substring(0, end).toLowerCase(Locale.ROOT);
		assertThat(head).as(what).startsWith("http/1.1 4").contains("content-type: application/problem+json");
		assertThat(answer).as(what)
			.contains("\"type\":\"https://ballast.dev/problems/")
			.doesNotContain("about:blank")
			.doesNotContainIgnoringCase("<html")
			.doesNotContain("\"timestamp\"");
	}

	private String send(String request) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", port)) {
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
			return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
		}
	}

}
