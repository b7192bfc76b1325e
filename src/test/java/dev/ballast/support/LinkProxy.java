package dev.ballast.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP link between a node and its PostgreSQL that a test can cut: it forwards, holds
 * every byte (a black hole: sockets stay open, nothing arrives, no reset, so only the
 * callers' own timeouts end their waits, as in a network partition), or resets every
 * connection and refuses new ones (as a firewall rejecting, or a peer gone). Back to
 * {@link #forward()}, held bytes flow on, as TCP delivers what it retransmits once a
 * partition heals; connections a caller gave up on meanwhile are closed then.
 */
public final class LinkProxy implements AutoCloseable {

	/** What the link does now. */
	public enum Mode {

		FORWARD, BLACK_HOLE, RESET

	}

	private final ServerSocket listener;

	private final InetSocketAddress target;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final Object gate = new Object();

	private volatile Mode mode = Mode.FORWARD;

	private volatile boolean closed;

	private LinkProxy(ServerSocket listener, InetSocketAddress target) {
		this.listener = listener;
		this.target = target;
	}

	/** A link on a free loopback port to {@code host:port}, forwarding. */
	public static LinkProxy to(String host, int port) {
		try {
			ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
			LinkProxy proxy = new LinkProxy(listener, new InetSocketAddress(host, port));
			Thread.ofVirtual().name("link-proxy-accept").start(proxy::accept);
			return proxy;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A link to the one host of {@code jdbcUrl}
	 * ({@code jdbc:postgresql://host:port/...}).
	 */
	public static LinkProxy toDatabase(String jdbcUrl) {
		java.util.regex.Matcher hostPort = java.util.regex.Pattern.compile("^jdbc:postgresql://([^:/,]+):(\\d+)/")
			.matcher(jdbcUrl);
		if (!hostPort.find()) {
			throw new IllegalArgumentException("not a one-host PostgreSQL URL: " + jdbcUrl);
		}
		return to(hostPort.group(1), Integer.parseInt(hostPort.group(2)));
	}

	public int port() {
		return listener.getLocalPort();
	}

	/**
	 * {@code url} (a {@code jdbc:postgresql://host:port/...} URL of one host) through
	 * this link.
	 */
	public String through(String url) {
		return url.replaceFirst("^jdbc:postgresql://[^/]+/", "jdbc:postgresql://127.0.0.1:" + port() + "/");
	}

	public void forward() {
		set(Mode.FORWARD);
	}

	public void blackHole() {
		set(Mode.BLACK_HOLE);
	}

	/** Resets every open connection and every new one until {@link #forward()}. */
	public void reset() {
		set(Mode.RESET);
		sockets.forEach(this::abort);
	}

	private void set(Mode next) {
		synchronized (gate) {
			mode = next;
			gate.notifyAll();
		}
	}

	private void accept() {
		while (!closed) {
			Socket client;
			try {
				client = listener.accept();
			}
			catch (IOException ex) {
				return;
			}
			if (mode == Mode.RESET) {
				abort(client);
				continue;
			}
			Thread.ofVirtual().name("link-proxy-connect").start(() -> connect(client));
		}
	}

	private void connect(Socket client) {
		Socket server = new Socket();
		try {
			server.connect(target, 2_000);
		}
		catch (IOException ex) {
			abort(client);
			return;
		}
		sockets.add(client);
		sockets.add(server);
		Thread.ofVirtual().name("link-proxy-up").start(() -> pump(client, server));
		Thread.ofVirtual().name("link-proxy-down").start(() -> pump(server, client));
	}

	/**
	 * Copies from one side to the other while the link forwards; while it is a black
	 * hole, what was read waits here, and nothing more is read, so the sender's buffers
	 * fill as they do when nothing is acknowledged.
	 */
	private void pump(Socket from, Socket to) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
				awaitPassage();
				out.write(buffer, 0, read);
				out.flush();
				awaitPassage();
			}
		}
		catch (IOException | InterruptedException ex) {
			// The other direction, or reset(), closed the pair; or the test ended.
		}
		finally {
			abort(from);
			abort(to);
		}
	}

	private void awaitPassage() throws InterruptedException, SocketException {
		synchronized (gate) {
			while (mode == Mode.BLACK_HOLE && !closed) {
				gate.wait();
			}
			if (mode == Mode.RESET || closed) {
				throw new SocketException("the link was reset");
			}
		}
	}

	/** Closes with a reset (RST), not a FIN: the peer's next read fails at once. */
	private void abort(Socket socket) {
		sockets.remove(socket);
		try {
			socket.setSoLinger(true, 0);
			socket.close();
		}
		catch (IOException ex) {
			// Already closed.
		}
	}

	@Override
	public void close() {
		closed = true;
		set(Mode.RESET);
		try {
			listener.close();
		}
		catch (IOException ex) {
			// Closing.
		}
		sockets.forEach(this::abort);
	}

}
