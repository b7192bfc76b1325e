package dev.ballast.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * Real servers on loopback for probes to meet: one that answers with a status the test
 * sets, one that accepts connections and never answers, and a port where nothing listens.
 */
final class TestTargets implements AutoCloseable {

	private final List<AutoCloseable> open = new ArrayList<>();

	/** An HTTP server answering {@code GET /health} with the status it holds. */
	Answering answering(int status) {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
			AtomicInteger code = new AtomicInteger(status);
			AtomicInteger hits = new AtomicInteger();
			server.createContext("/health", exchange -> {
				hits.incrementAndGet();
				byte[] body = ("status " + code.get()).getBytes(StandardCharsets.UTF_8);
				exchange.sendResponseHeaders(code.get(), body.length);
				exchange.getResponseBody().write(body);
				exchange.close();
			});
			server.start();
			open.add(() -> server.stop(0));
			return new Answering(server.getAddress().getPort(), code, hits);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A port that accepts connections and never answers on them. */
	int hanging() {
		try {
			ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
			List<Socket> held = new ArrayList<>();
			Thread.ofVirtual().start(() -> {
				while (!server.isClosed()) {
					try {
						held.add(server.accept());
					}
					catch (IOException ex) {
						return;
					}
				}
			});
			open.add(server);
			open.add(() -> held.forEach(socket -> {
				try {
					socket.close();
				}
				catch (IOException ex) {
					// closing what the test held open
				}
			}));
			return server.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A port nothing listens on (taken and let go). */
	static int refusing() {
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return server.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable closeable : open) {
			closeable.close();
		}
	}

	/** An HTTP server whose answer the test changes. */
	record Answering(int port, AtomicInteger status, AtomicInteger hits) {

		void answer(int code) {
			status.set(code);
		}

	}

}
