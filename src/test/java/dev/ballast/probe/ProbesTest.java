package dev.ballast.probe;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckKind;
import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.CheckTargets;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Each probe against real servers on loopback: what it calls passing, warning and
 * critical, that it gives up at its timeout whatever the server does (hangs, trickles a
 * body that never ends, a TLS handshake or an HTTP/2 frame a byte at a time), that it
 * follows no redirect, that it sends a non-ASCII URL percent-encoded, and that the gRPC
 * probe reads a real grpc-java health service.
 */
class ProbesTest {

	/** The probes as a node runs them, with no endpoints of a node's own to refuse. */
	private static final Probes PROBES = new Probes(new CheckTargets(List.of(), false));

	private final TestTargets targets = new TestTargets();

	private HttpServer http;

	@AfterEach
	void close() throws Exception {
		targets.close();
		if (http != null) {
			http.stop(0);
		}
	}

	@Test
	void httpJudgesByStatusAsConsulDoes() {
		TestTargets.Answering server = targets.answering(200);
		assertThat(run(http(server.port(), "/health")).status()).isEqualTo(CheckStatus.PASSING);
		server.answer(204);
		assertThat(run(http(server.port(), "/health")).status()).isEqualTo(CheckStatus.PASSING);
		server.answer(429);
		assertThat(run(http(server.port(), "/health")).status()).isEqualTo(CheckStatus.WARNING);
		server.answer(503);
		ProbeOutcome failed = run(http(server.port(), "/health"));
		assertThat(failed.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(failed.output())
			.isEqualTo("HTTP GET http://127.0.0.1:%d/health: 503 Output: status 503".formatted(server.port()));
	}

	@Test
	void httpGivesUpAtItsTimeoutOnAServerThatNeverAnswersOrNeverEnds() throws Exception {
		int hanging = targets.hanging();
		long started = System.nanoTime();
		ProbeOutcome hung = run(http(hanging, "/"));
		assertThat(hung.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(hung.output()).contains("no answer within 300 ms");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1500));

		http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
		http.createContext("/endless", exchange -> {
			exchange.sendResponseHeaders(200, 0);
			OutputStream body = exchange.getResponseBody();
			try {
				for (int chunk = 0; chunk < 100_000; chunk++) {
					body.write("x".repeat(512).getBytes());
					body.flush();
				}
			}
			catch (IOException ex) {
				// the probe stopped reading, as it should
			}
		});
		http.createContext("/moved", exchange -> {
			exchange.getResponseHeaders().add("Location", "http://169.254.169.254/");
			exchange.sendResponseHeaders(302, -1);
			exchange.close();
		});
		http.start();
		int port = http.getAddress().getPort();
		ProbeOutcome endless = run(http(port, "/endless"));
		assertThat(endless.status()).isEqualTo(CheckStatus.PASSING);
		assertThat(endless.output().length()).isLessThan(HttpProbe.BODY_BYTES + 100);
		ProbeOutcome moved = run(http(port, "/moved"));
		assertThat(moved.status()).as("a redirect is not followed").isEqualTo(CheckStatus.CRITICAL);
		assertThat(moved.output()).contains(": 302");
	}

	@Test
	void httpSendsTheChecksMethodAndHeadersAndGivesUpOnAServerThatTricklesItsHead() throws Exception {
		List<String> seen = new CopyOnWriteArrayList<>();
		http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
		http.createContext("/health", exchange -> {
			seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " "
					+ exchange.getRequestHeaders().getFirst("X-Probe") + " "
					+ exchange.getRequestHeaders().getFirst("Host"));
			exchange.sendResponseHeaders(200, -1);
			exchange.close();
		});
		http.start();
		int port = http.getAddress().getPort();
		CheckDefinition head = CheckDefinition.of(CheckKind.HTTP, "http://127.0.0.1:" + port + "/health?deep=1", "HEAD",
				Map.of("X-Probe", List.of("yes")), false, Duration.ofSeconds(1), Duration.ofMillis(300), 1, 1, null);
		ProbeOutcome answered = run(head);
		assertThat(answered.status()).as(answered.output()).isEqualTo(CheckStatus.PASSING);
		assertThat(seen).containsExactly("HEAD /health?deep=1 yes 127.0.0.1:" + port);

		// One byte of the status line every 50 ms: each read is quick, the whole is not.
		try (ServerSocket trickling = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
			Thread.ofVirtual().start(() -> {
				try (Socket client = trickling.accept()) {
					for (byte b : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes()) {
						client.getOutputStream().write(b);
						client.getOutputStream().flush();
						Thread.sleep(50);
					}
				}
				catch (IOException | InterruptedException ex) {
					// the probe gave up and closed, as it should
				}
			});
			long started = System.nanoTime();
			ProbeOutcome trickled = run(http(trickling.getLocalPort(), "/"));
			assertThat(trickled.status()).isEqualTo(CheckStatus.CRITICAL);
			assertThat(trickled.output()).contains("no answer within 300 ms");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(1000));
		}
	}

	@Test
	void httpCallsAnAnswerThatIsNotHttpCriticalAndReadsNoMoreThanItsBoundOfHead() throws Exception {
		try (ServerSocket junk = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
			Thread.ofVirtual().start(() -> {
				for (String answer : new String[] { "SSH-2.0-OpenSSH_9.6\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", null }) {
					try (Socket client = junk.accept()) {
						if (answer != null) {
							client.getOutputStream().write(answer.getBytes());
							continue;
						}
						// A status line and then one header that never ends.
						client.getOutputStream().write("HTTP/1.1 200 OK\r\nX: ".getBytes());
						byte[] endless = "x".repeat(4096).getBytes();
						for (int i = 0; i < 1000; i++) {
							client.getOutputStream().write(endless);
						}
					}
					catch (IOException ex) {
						// the probe stopped reading, as it should
					}
				}
			});
			CheckDefinition check = http(junk.getLocalPort(), "/");
			assertThat(run(check).output()).contains("not an HTTP answer: SSH-2.0-OpenSSH_9.6");
			assertThat(run(check).output()).contains("not an HTTP status: HTTP/1.1 2x0 OK");
			ProbeOutcome endless = run(check);
			assertThat(endless.status()).isEqualTo(CheckStatus.CRITICAL);
			assertThat(endless.output()).contains("longer than " + HttpProbe.HEAD_BYTES + " bytes");
		}
	}

	@Test
	void httpsVerifiesTheCertificateUnlessTheCheckSkipsVerification(@TempDir Path dir) throws Exception {
		Path store = dir.resolve("server.p12");
		Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
				"-genkeypair", "-alias", "probe", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
				"-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit")
			.redirectErrorStream(true)
			.start();
		assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).as("keytool ends").isTrue();
		assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes())).isZero();
		KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
		keys.init(KeyStore.getInstance(store.toFile(), "changeit".toCharArray()), "changeit".toCharArray());
		SSLContext tls = SSLContext.getInstance("TLS");
		tls.init(keys.getKeyManagers(), null, null);
		HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
		https.setHttpsConfigurator(new HttpsConfigurator(tls));
		https.createContext("/health", exchange -> {
			byte[] body = "UP".getBytes();
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		https.start();
		try {
			String target = "https://127.0.0.1:" + https.getAddress().getPort() + "/health";
			// TLS set-up on a cold JVM takes longer than the other probes' 300 ms.
			ProbeOutcome skipped = run(CheckDefinition.of(CheckKind.HTTP, target, null, Map.of(), true,
					Duration.ofSeconds(5), Duration.ofSeconds(3), 1, 1, null));
			assertThat(skipped.status()).as(skipped.output()).isEqualTo(CheckStatus.PASSING);
			assertThat(skipped.output()).endsWith(": 200 Output: UP");
			ProbeOutcome verified = run(CheckDefinition.of(CheckKind.HTTP, target, null, Map.of(), false,
					Duration.ofSeconds(5), Duration.ofSeconds(3), 1, 1, null));
			assertThat(verified.status()).as("a self-signed certificate is not trusted")
				.isEqualTo(CheckStatus.CRITICAL);
			assertThat(verified.output()).contains("SSLHandshakeException");
		}
		finally {
			https.stop(0);
		}
	}

	@Test
	void tcpPassesOnAcceptAndFailsOnRefusal() {
		int listening = targets.hanging();
		assertThat(run(tcp(CheckKind.TCP, "127.0.0.1:" + listening)).status()).isEqualTo(CheckStatus.PASSING);
		ProbeOutcome refused = run(tcp(CheckKind.TCP, "127.0.0.1:" + TestTargets.refusing()));
		assertThat(refused.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(refused.output()).startsWith("TCP connect 127.0.0.1:");
	}

	@Test
	void grpcReadsARealHealthService() throws Exception {
		HealthStatusManager health = new HealthStatusManager();
		Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
			.addService(health.getHealthService())
			.build()
			.start();
		try {
			String at = "127.0.0.1:" + server.getPort();
			health.setStatus("", ServingStatus.SERVING);
			health.setStatus("shop.Cart", ServingStatus.NOT_SERVING);
			// A real server's first calls pay for its JIT: judged with a 2 s timeout.
			ProbeOutcome serving = run(grpc(at));
			assertThat(serving.status()).as(serving.output()).isEqualTo(CheckStatus.PASSING);
			assertThat(serving.output()).endsWith(": SERVING");
			ProbeOutcome notServing = run(grpc(at + "/shop.Cart"));
			assertThat(notServing.status()).isEqualTo(CheckStatus.CRITICAL);
			assertThat(notServing.output()).endsWith(": NOT_SERVING");
			ProbeOutcome unknown = run(grpc(at + "/shop.Nothing"));
			assertThat(unknown.status()).isEqualTo(CheckStatus.CRITICAL);
			assertThat(unknown.output()).contains("without an answer");
			health.setStatus("", ServingStatus.NOT_SERVING);
			assertThat(run(grpc(at)).status()).isEqualTo(CheckStatus.CRITICAL);
		}
		finally {
			server.shutdownNow();
			assertThat(server.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
		}
		ProbeOutcome hung = run(tcp(CheckKind.GRPC, "127.0.0.1:" + targets.hanging()));
		assertThat(hung.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(hung.output()).contains("no answer within 300 ms");
	}

	@Test
	void httpsGivesUpAtItsTimeoutOnATlsHandshakeThatTrickles() {
		TestTargets.Trickling trickling = targets.tlsTrickling();
		givesUpAtOneSecond(trickling,
				CheckDefinition.of(CheckKind.HTTP, "https://127.0.0.1:" + trickling.port() + "/health", null, Map.of(),
						true, Duration.ofSeconds(2), Duration.ofMillis(1000), 1, 1, null));
	}

	@Test
	void grpcGivesUpAtItsTimeoutOnADataFrameThatTrickles() {
		TestTargets.Trickling trickling = targets.grpcTrickling();
		givesUpAtOneSecond(trickling, CheckDefinition.of(CheckKind.GRPC, "127.0.0.1:" + trickling.port(), null,
				Map.of(), false, Duration.ofSeconds(2), Duration.ofMillis(1000), 1, 1, null));
	}

	/** {@code check} (1 s timeout) of a server that trickles: cut at its deadline. */
	private static void givesUpAtOneSecond(TestTargets.Trickling trickling, CheckDefinition check) {
		long started = System.nanoTime();
		ProbeOutcome outcome = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> run(check));
		// The 1 s deadline, with room for a machine busy with other builds; a timeout on
		// each read never ends here (a byte comes every 0.7 s).
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(outcome.status()).isEqualTo(CheckStatus.CRITICAL);
		assertThat(outcome.output()).contains("no answer within 1000 ms");
		Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> trickling.open().get() == 0);
	}

	@Test
	void httpSendsANonAsciiPathAndQueryPercentEncoded() throws Exception {
		List<String> lines = new CopyOnWriteArrayList<>();
		try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
			Thread.ofVirtual().start(() -> {
				try (Socket client = server.accept()) {
					byte[] head = new byte[4096];
					int read = client.getInputStream().read(head);
					String text = new String(head, 0, Math.max(read, 0), StandardCharsets.ISO_8859_1);
					lines.add(text.substring(0, text.indexOf("\r\n")));
					client.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes());
				}
				catch (IOException | RuntimeException ex) {
					lines.add("failed: " + ex);
				}
			});
			ProbeOutcome outcome = run(http(server.getLocalPort(), "/\u00e9t\u00e9/\u4e2d?q=\u00fc"));
			assertThat(outcome.status()).as(outcome.output()).isEqualTo(CheckStatus.PASSING);
			assertThat(lines).containsExactly("GET /%C3%A9t%C3%A9/%E4%B8%AD?q=%C3%BC HTTP/1.1");
		}
	}

	private static ProbeOutcome run(CheckDefinition check) {
		return PROBES.run(check);
	}

	private static CheckDefinition http(int port, String path) {
		return CheckDefinition.of(CheckKind.HTTP, "http://127.0.0.1:" + port + path, null, Map.of(), false,
				Duration.ofSeconds(1), Duration.ofMillis(300), 1, 1, null);
	}

	private static CheckDefinition grpc(String target) {
		return CheckDefinition.of(CheckKind.GRPC, target, null, Map.of(), false, Duration.ofSeconds(5),
				Duration.ofSeconds(2), 1, 1, null);
	}

	private static CheckDefinition tcp(CheckKind kind, String target) {
		return CheckDefinition.of(kind, target, null, Map.of(), false, Duration.ofSeconds(1), Duration.ofMillis(300), 1,
				1, null);
	}

}
