package dev.ballast.watch;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a stream puts on the wire, read byte by byte from a plain socket: once its
 * connection is handed from the container to the stream ({@link StreamConnection}), the
 * response must still be a well-formed chunked body of exactly the events, end with the
 * last chunk, and free its place as soon as the client hangs up. This fails loudly if a
 * Tomcat release changes how it sends an upgraded response's headers.
 */
@RegistryTest
class WatchWireTest {

	@LocalServerPort
	int port;

	@Autowired
	WatcherCap cap;

	@Autowired
	Streams streams;

	@Test
	void aStreamIsAChunkedBodyOfExactlyItsEvents() throws IOException {
		Api api = Api.on(port);
		String service = Names.service("wire");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("10.0.0.1", 80).leaseTtlSeconds(300));
		try (Socket socket = watch(service, "HTTP/1.1", Admin.HEADER)) {
			InputStream in = new BufferedInputStream(socket.getInputStream());
			Map<String, String> headers = headers(in);
			assertThat(headers).containsEntry(":status", "HTTP/1.1 200 ")
				.containsEntry("content-type", "text/event-stream;charset=UTF-8")
				.containsEntry("cache-control", "no-store")
				.containsEntry("x-accel-buffering", "no")
				.containsEntry("transfer-encoding", "chunked")
				.doesNotContainKey("content-length");

			String snapshot = chunk(in);
			assertThat(snapshot).startsWith("id: 1\nevent: snapshot\ndata: {").endsWith("}\n\n");
			JsonNode state = json(snapshot);
			assertThat(state.get("revision").asLong()).isEqualTo(1);
			assertThat(state.get("instances").get(0).get("weight").asInt()).isEqualTo(100);

			api.patch(a, "{\"weight\":7}");
			String upsert = chunk(in);
			assertThat(upsert).startsWith("id: 2\nevent: upsert\ndata: {").endsWith("}\n\n");
			assertThat(upsert.lines().toList()).as("id, event, one data line, the blank line").hasSize(4);
			assertThat(json(upsert).get("weight").isInt()).isTrue();
			assertThat(json(upsert).get("weight").asInt()).isEqualTo(7);
			assertThat(json(upsert).get("revision").asLong()).isEqualTo(2);
		}
	}

	@Test
	void anEndedStreamSendsItsLastEventAndTheLastChunkThenCloses() throws IOException {
		Api admin = Api.on(port);
		Api.Reply created = admin.send("POST", "/v1/tokens", "{\"name\":\"wire\",\"role\":\"reader\"}", null);
		String service = Names.service("wire-end");
		admin.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1).leaseTtlSeconds(300));
		try (Socket socket = watch(service, "HTTP/1.1", "Bearer " + created.json().get("token").asString())) {
			InputStream in = new BufferedInputStream(socket.getInputStream());
			headers(in);
			assertThat(chunk(in)).startsWith("id: 1\nevent: snapshot\n");

			admin.delete("/v1/tokens/" + created.json().get("id").asString());

			assertThat(chunk(in)).matches("retry: \\d+\nevent: reconnect\ndata: \\{\"reason\":\"token-revoked\"}\n\n");
			assertThat(chunk(in)).as("the last chunk").isEmpty();
			assertThat(in.read()).as("the connection closed").isEqualTo(-1);
		}
	}

	@Test
	void anHttp10ClientGetsThePlainEventsUntilTheConnectionEnds() throws IOException {
		String service = Names.service("wire-10");
		Api.on(port).put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1));
		try (Socket socket = watch(service, "HTTP/1.0", Admin.HEADER)) {
			InputStream in = new BufferedInputStream(socket.getInputStream());
			Map<String, String> headers = headers(in);
			assertThat(headers).containsEntry("content-type", "text/event-stream;charset=UTF-8")
				.containsEntry("connection", "close")
				.doesNotContainKey("transfer-encoding")
				.doesNotContainKey("content-length");
			assertThat(new String(in.readNBytes(21), StandardCharsets.UTF_8)).isEqualTo("id: 1\nevent: snapshot");
		}
	}

	@Test
	void aClientThatHangsUpFreesItsPlaceAtOnce() throws IOException {
		String service = Names.service("wire-gone");
		Api.on(port).put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1));
		int before = cap.open();
		try (Socket socket = watch(service, "HTTP/1.1", Admin.HEADER)) {
			InputStream in = new BufferedInputStream(socket.getInputStream());
			headers(in);
			chunk(in);
			assertThat(cap.open()).isEqualTo(before + 1);
		}
		// Well before the next keepalive (15 s) would find the connection gone.
		Awaitility.await().atMost(Duration.ofSeconds(3)).until(() -> cap.open() == before);
	}

	/**
	 * A client that stops reading fills its own socket and queue, and nothing else: a
	 * stream that reads gets every change in order meanwhile, and the stalled one, once
	 * it reads again, gets its events in order or a fresh snapshot, never a gap.
	 */
	@Test
	void aStreamThatStopsReadingDelaysNoOther() throws IOException {
		Api api = Api.on(port);
		String service = Names.service("wire-slow");
		String a = "/v1/services/%s/instances/a".formatted(service);
		api.put(a, Registration.at("10.0.0.1", 80).leaseTtlSeconds(300));
		// 32 KiB an event: a few hundred fill any loopback socket's buffers.
		String filler = "x".repeat(500);
		try (Socket stalled = watch(service, "HTTP/1.1", Admin.HEADER, 4096);
				Socket reading = watch(service, "HTTP/1.1", Admin.HEADER)) {
			InputStream slow = new BufferedInputStream(stalled.getInputStream());
			headers(slow);
			assertThat(chunk(slow)).startsWith("id: 1\nevent: snapshot\n");
			InputStream in = new BufferedInputStream(reading.getInputStream());
			headers(in);
			assertThat(chunk(in)).startsWith("id: 1\nevent: snapshot\n");

			int changes = 300;
			for (int i = 0; i < changes; i++) {
				StringBuilder metadata = new StringBuilder("{");
				for (int k = 0; k < 64; k++) {
					metadata.append(k == 0 ? "" : ",")
						.append("\"k")
						.append(k)
						.append("\":\"")
						.append(i)
						.append(filler)
						.append('"');
				}
				api.patch(a, "{\"metadata\":" + metadata.append('}') + "}");
				// Read as the changes come: the reading stream keeps up with the writes.
				assertThat(chunk(in)).as("change %d at the reading stream", i).startsWith("id: " + (i + 2) + "\n");
			}
			assertThat(streams.live()).as("the stalled stream holds events its socket did not take")
				.anyMatch(Watcher::hasQueued);

			long last = 1;
			while (last < changes + 1) {
				String event = chunk(slow);
				long id = Long.parseLong(event.substring(4, event.indexOf('\n')));
				if (!event.contains("event: snapshot")) {
					assertThat(id).as("the stalled stream's next event").isEqualTo(last + 1);
				}
				assertThat(id).as("ids only move forward").isGreaterThan(last);
				last = id;
			}
		}
	}

	private Socket watch(String service, String version, String authorization) throws IOException {
		return watch(service, version, authorization, 0);
	}

	/** A stream's request sent; with a receive buffer of that size unless 0. */
	private Socket watch(String service, String version, String authorization, int receiveBuffer) throws IOException {
		Socket socket = new Socket();
		if (receiveBuffer > 0) {
			socket.setReceiveBufferSize(receiveBuffer);
		}
		socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
		socket.setSoTimeout(10_000);
		socket.getOutputStream()
			.write(("GET /v1/services/" + service + "/watch " + version
					+ "\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: " + authorization
					+ "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
		return socket;
	}

	/** The status line (as ":status") and the headers, names in lower case. */
	private static Map<String, String> headers(InputStream in) throws IOException {
		Map<String, String> headers = new HashMap<>();
		headers.put(":status", line(in));
		for (String header = line(in); !header.isEmpty(); header = line(in)) {
			String[] field = header.split(":", 2);
			headers.put(field[0].toLowerCase(Locale.ROOT), field[1].strip());
		}
		return headers;
	}

	/** The next chunk, checked to be framed exactly: its size, CRLF, the bytes, CRLF. */
	private static String chunk(InputStream in) throws IOException {
		String size = line(in);
		assertThat(size).matches("[0-9a-f]+");
		byte[] bytes = in.readNBytes(Integer.parseInt(size, 16));
		assertThat(line(in)).as("the chunk's end").isEmpty();
		return new String(bytes, StandardCharsets.UTF_8);
	}

	/** One CRLF-ended line, without its end; a lone LF is not an end. */
	private static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		for (int c = in.read(); c != '\r'; c = in.read()) {
			if (c < 0) {
				throw new EOFException("connection closed mid-line: " + line);
			}
			line.append((char) c);
		}
		assertThat(in.read()).as("LF after CR").isEqualTo('\n');
		return line.toString();
	}

	private static JsonNode json(String event) {
		String data = event.lines().filter(line -> line.startsWith("data: ")).findFirst().orElseThrow();
		return JsonMapper.shared().readTree(data.substring("data: ".length()));
	}

}
