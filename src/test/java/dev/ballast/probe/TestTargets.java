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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * Real servers on loopback for probes to meet: one that answers with a status the test
 * sets, one that accepts connections and never answers, servers that trickle a TLS
 * handshake or an HTTP/2 frame a byte at a time, and a port where nothing listens.
 */
final class TestTargets implements AutoCloseable {

	private final List<AutoCloseable> open = new ArrayList<>();

	/** An HTTP server answering {@code GET /health} with the status it holds. */
	Answering answering(int status) {
		return answering(status, null);
	}

	/**
	 * An HTTP server answering {@code GET /health} with the status it holds and
	 * {@code body} (UTF-8), or {@code status <code>} when it is null.
	 */
	Answering answering(int status, String fixedBody) {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
			AtomicInteger code = new AtomicInteger(status);
			AtomicInteger hits = new AtomicInteger();
			server.createContext("/health", exchange -> {
				hits.incrementAndGet();
				byte[] body = (fixedBody != null ? fixedBody : "status " + code.get()).getBytes(StandardCharsets.UTF_8);
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

	/**
	 * A server that begins a TLS handshake record of 16,000 bytes and then sends one byte
	 * of it every 0.7 s: every read a client makes sees progress, the whole never ends.
	 */
	Trickling tlsTrickling() {
		// A handshake record (22), TLS 1.2, 16,000 bytes (0x3e80).
		return trickling(new byte[] { 0x16, 0x03, 0x03, 0x3e, (byte) 0x80 }, true);
	}

	/**
	 * A plaintext HTTP/2 server that says its (empty) SETTINGS, announces a DATA frame of
	 * 1,000 bytes on the call's stream (1), and sends one byte of it every 0.7 s.
	 */
	Trickling grpcTrickling() {
		return trickling(new byte[] { 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0x03, (byte) 0xe8, 0x00, 0x00, 0, 0, 0, 1 },
				true);
	}

	/**
	 * A server that accepts and never sends a byte, counting its connections as
	 * {@link #tlsTrickling()} does.
	 */
	Trickling silent() {
		return trickling(new byte[0], false);
	}

	/**
	 * A server that sends {@code start} on every connection and then, if
	 * {@code trickles}, one zero byte every 0.7 s until the client goes. Each connection
	 * has a reader that drains what the client sends, so that its closing is seen at
	 * once.
	 */
	private Trickling trickling(byte[] start, boolean trickles) {
		try {
			ServerSocket server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
			Trickling trickling = new Trickling(server.getLocalPort(), new AtomicInteger(), new AtomicInteger(),
					new AtomicInteger(), new ConcurrentLinkedQueue<>());
			List<Socket> held = new CopyOnWriteArrayList<>();
			Thread.ofVirtual().start(() -> {
				while (!server.isClosed()) {
					try {
						Socket client = server.accept();
						held.add(client);
						Thread.ofVirtual().start(() -> trickle(client, start, trickles, trickling));
					}
					catch (IOException ex) {
						return;
					}
				}
			});
			open.add(server);
			open.add(() -> held.forEach(TestTargets::closeQuietly));
			return trickling;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void trickle(Socket client, byte[] start, boolean trickles, Trickling trickling) {
		long opened = System.nanoTime();
		trickling.accepted().incrementAndGet();
		trickling.opened(trickling.open().incrementAndGet());
		Thread reader = Thread.ofVirtual().start(() -> {
			byte[] sink = new byte[4096];
			try {
				while (client.getInputStream().read(sink) >= 0) {
					// what the client sends is not read for meaning
				}
			}
			catch (IOException ex) {
				// reset by the client, or closed below
			}
			closeQuietly(client);
		});
		try {
			client.getOutputStream().write(start);
			while (trickles && !client.isClosed()) {
				Thread.sleep(700);
				client.getOutputStream().write(0);
			}
		}
		catch (IOException | InterruptedException ex) {
			// the client went, as it should
		}
		try {
			reader.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		trickling.open().decrementAndGet();
		trickling.lifetimes().add((System.nanoTime() - opened) / 1_000_000);
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing what the test held open
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

	/**
	 * A trickling server and what it saw.
	 *
	 * @param port where it listens
	 * @param open connections open now
	 * @param mostOpen the most open at once
	 * @param accepted connections accepted so far
	 * @param lifetimes how long each closed connection lasted, in milliseconds
	 */
	record Trickling(int port, AtomicInteger open, AtomicInteger mostOpen, AtomicInteger accepted,
			ConcurrentLinkedQueue<Long> lifetimes) {

		void opened(int now) {
			mostOpen.accumulateAndGet(now, Math::max);
		}

	}

	/** An HTTP server whose answer the test changes. */
	record Answering(int port, AtomicInteger status, AtomicInteger hits) {

		void answer(int code) {
			status.set(code);
		}

	}

}
