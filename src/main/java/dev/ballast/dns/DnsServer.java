package dev.ballast.dns;

import java.io.Closeable;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

import dev.ballast.database.Reachability;
import dev.ballast.watch.BlockingQueries;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The DNS responder's sockets: one UDP socket served by {@link DnsSettings#udpThreads()}
 * threads that answer on the spot, and one TCP server socket whose connections (at most
 * {@link DnsSettings#maxTcpConnections()}) each get a virtual thread reading
 * two-byte-framed queries, every read bounded by {@link DnsSettings#tcpTimeout()}. A
 * query for a service this node does not follow yet is answered when its state is loaded,
 * without holding a UDP thread. Off unless {@code ballast.dns.port} is set.
 */
@Component
class DnsServer implements SmartLifecycle {

	private static final Logger log = LoggerFactory.getLogger(DnsServer.class);

	/** Queries larger than this are not DNS queries anyone sends over UDP. */
	private static final int UDP_RECEIVE = 4096;

	/** How long a UDP thread waits before it looks whether the server is stopping. */
	private static final int POLL_MILLIS = 500;

	/** Free ports tried for the pair when {@code ballast.dns.port} is 0. */
	private static final int FREE_PORT_ATTEMPTS = 10;

	private final DnsSettings settings;

	private final BlockingQueries reads;

	private final Reachability reachability;

	private final MeterRegistry meters;

	private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running;

	private Responder responder;

	private DatagramSocket udp;

	private ServerSocket tcp;

	private Semaphore connectionSlots;

	DnsServer(DnsSettings settings, BlockingQueries reads, Reachability reachability, MeterRegistry meters) {
		this.settings = settings;
		this.reads = reads;
		this.reachability = reachability;
		this.meters = meters;
	}

	@Override
	public void start() {
		if (!settings.enabled()) {
			return;
		}
		Name domain = domain(settings.domain());
		responder = new Responder(new DnsView(reads, domain), settings, domain, meters, reachability::reachable);
		connectionSlots = new Semaphore(settings.maxTcpConnections());
		bindBoth();
		running = true;
		for (int i = 0; i < Math.max(1, settings.udpThreads()); i++) {
			threads.add(Thread.ofPlatform().name("ballast-dns-udp-" + i).daemon().start(this::serveUdp));
		}
		threads.add(Thread.ofPlatform().name("ballast-dns-tcp").daemon().start(this::acceptTcp));
		log.info("DNS responder for {} on {} port {} (UDP and TCP)", domain, settings.address(), port());
	}

	/**
	 * Binds the UDP socket, then the TCP socket to the same port: a client retries a
	 * truncated UDP answer over TCP there. With port 0 the UDP socket's free port may be
	 * taken for TCP (a client connection's local port, a listener), so another free port
	 * is tried, a bounded number of times.
	 */
	private void bindBoth() {
		int attempts = settings.port() == 0 ? FREE_PORT_ATTEMPTS : 1;
		for (int attempt = 1;; attempt++) {
			try {
				InetAddress address = InetAddress.getByName(settings.address());
				udp = new DatagramSocket(new InetSocketAddress(address, settings.port()));
				udp.setSoTimeout(POLL_MILLIS);
				tcp = new ServerSocket();
				tcp.setReuseAddress(true);
				tcp.bind(new InetSocketAddress(address, udp.getLocalPort()), 128);
				return;
			}
			catch (IOException ex) {
				closeSockets();
				if (attempt >= attempts) {
					throw new IllegalStateException(
							"cannot bind the DNS responder to %s:%d (ballast.dns.address, ballast.dns.port)"
								.formatted(settings.address(), settings.port()),
							ex);
				}
			}
		}
	}

	/** The port both sockets are bound to; -1 when the responder is off. */
	int port() {
		return udp == null ? -1 : udp.getLocalPort();
	}

	@Override
	public void stop() {
		if (!running) {
			return;
		}
		running = false;
		closeSockets();
		connections.forEach(DnsServer::closeQuietly);
		try {
			for (Thread thread : threads) {
				thread.join(Duration.ofSeconds(5));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		threads.clear();
	}

	@Override
	public boolean isRunning() {
		return running;
	}

	private void serveUdp() {
		byte[] buffer = new byte[UDP_RECEIVE];
		DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
		while (running) {
			try {
				packet.setLength(buffer.length);
				udp.receive(packet);
			}
			catch (SocketTimeoutException ex) {
				continue;
			}
			catch (IOException ex) {
				if (running) {
					log.warn("DNS UDP receive failed: {}", ex.toString());
				}
				continue;
			}
			InetSocketAddress client = (InetSocketAddress) packet.getSocketAddress();
			try {
				responder.answer(buffer, packet.getLength(), Responder.Transport.UDP)
					.thenAccept(answer -> sendUdp(answer, client));
			}
			catch (RuntimeException ex) {
				// A bug must not end the loop that answers everyone.
				log.warn("DNS query from {} not answered", client, ex);
			}
		}
	}

	private void sendUdp(byte[] answer, InetSocketAddress client) {
		if (answer == null) {
			return;
		}
		try {
			udp.send(new DatagramPacket(answer, answer.length, client));
		}
		catch (IOException ex) {
			log.debug("DNS answer to {} not sent: {}", client, ex.toString());
		}
	}

	private void acceptTcp() {
		while (running) {
			Socket socket;
			try {
				socket = tcp.accept();
			}
			catch (IOException ex) {
				if (running) {
					log.warn("DNS TCP accept failed: {}", ex.toString());
				}
				continue;
			}
			if (!connectionSlots.tryAcquire()) {
				closeQuietly(socket);
				continue;
			}
			connections.add(socket);
			Thread.ofVirtual().name("ballast-dns-tcp-connection").start(() -> {
				try {
					serveTcp(socket);
				}
				finally {
					connections.remove(socket);
					closeQuietly(socket);
					connectionSlots.release();
				}
			});
		}
	}

	/** Queries one after the other until the client closes, idles or stalls. */
	private void serveTcp(Socket socket) {
		try {
			socket.setTcpNoDelay(true);
			InputStream in = socket.getInputStream();
			DataOutputStream out = new DataOutputStream(socket.getOutputStream());
			byte[] lengthBytes = new byte[2];
			while (running) {
				long deadline = System.nanoTime() + settings.tcpTimeout().toNanos();
				if (!readFully(socket, in, lengthBytes, 2, deadline)) {
					return;
				}
				int length = ((lengthBytes[0] & 0xff) << 8) | (lengthBytes[1] & 0xff);
				byte[] query = new byte[length];
				if (!readFully(socket, in, query, length, deadline)) {
					return;
				}
				byte[] answer = responder.answer(query, length, Responder.Transport.TCP).join();
				if (answer == null) {
					return;
				}
				out.writeShort(answer.length);
				out.write(answer);
				out.flush();
			}
		}
		catch (IOException | RuntimeException ex) {
			log.debug("DNS TCP connection ended: {}", ex.toString());
		}
	}

	/**
	 * Reads {@code length} bytes by {@code deadline}; false when the client closed or
	 * missed the deadline, so that a client sending a byte at a time cannot hold the
	 * connection longer than one timeout per query.
	 */
	private static boolean readFully(Socket socket, InputStream in, byte[] into, int length, long deadline)
			throws IOException {
		int read = 0;
		while (read < length) {
			long left = (deadline - System.nanoTime()) / 1_000_000;
			if (left <= 0) {
				return false;
			}
			socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
			int n;
			try {
				n = in.read(into, read, length - read);
			}
			catch (SocketTimeoutException ex) {
				return false;
			}
			if (n < 0) {
				return false;
			}
			read += n;
		}
		return true;
	}

	private void closeSockets() {
		if (udp != null) {
			udp.close();
		}
		if (tcp != null) {
			closeQuietly(tcp);
		}
	}

	private static void closeQuietly(Closeable closeable) {
		try {
			closeable.close();
		}
		catch (IOException ex) {
			// Closing on the way out: nothing left to do with it.
		}
	}

	static Name domain(String domain) {
		try {
			Name name = Name.fromString(domain.endsWith(".") ? domain : domain + ".");
			// Room under it for <label>.<service>.instance: 16 + 63 + 8 and their
			// lengths.
			if (name.length() > 160) {
				throw new IllegalArgumentException("ballast.dns.domain must be at most 160 characters; got " + domain);
			}
			return name;
		}
		catch (TextParseException ex) {
			throw new IllegalArgumentException("ballast.dns.domain is not a DNS name: " + domain, ex);
		}
	}

}
