package dev.ballast.probe;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckTargets;
import dev.ballast.registry.Port;

/**
 * Opens a probe's connection: resolves the check's host once, inside the probe's
 * deadline, holds the address it resolved to to {@link CheckTargets#refusal} (so that a
 * name that resolves, or is rebound, to the registry's own ports, its database, a denied
 * network or a metadata address is never connected to), and connects to that address, the
 * socket held by the deadline ({@link Deadline#hold}).
 * <p>
 * A name lookup cannot be closed from outside as a socket can: it runs on a virtual
 * thread of its own and is waited for with what is left of the deadline. One that
 * outlives its probe ends with the resolver's own timeout; at most {@link #LOOKUPS} run
 * at once, so a resolver that never answers holds no more than that.
 */
final class Dialer {

	/** Name lookups in flight at once, abandoned ones included. */
	static final int LOOKUPS = 64;

	private final CheckTargets targets;

	private final Semaphore lookups = new Semaphore(LOOKUPS);

	Dialer(CheckTargets targets) {
		this.targets = targets;
	}

	/**
	 * @param instancePort the port of the check's instance (a loopback address is probed
	 * only there)
	 * @throws NotProbed when the target resolves to an address no check may reach
	 * @throws IOException when it cannot be resolved or connected to in time
	 */
	Socket connect(CheckDefinition check, Port instancePort, Deadline deadline) throws IOException {
		InetAddress address = resolve(check.host(), deadline);
		Optional<String> refusal = targets.refusal(address, check.port(), instancePort);
		if (refusal.isPresent()) {
			throw new NotProbed(refusal.get());
		}
		Socket socket = new Socket();
		deadline.hold(socket);
		long left = deadline.leftMillis();
		if (left == 0) {
			throw new SocketTimeoutException("the check's timeout passed");
		}
		socket.connect(new InetSocketAddress(address, check.port().value()), (int) Math.min(left, Integer.MAX_VALUE));
		socket.setTcpNoDelay(true);
		// Closed with a reset, as HAProxy closes its checks: nothing more is to be said
		// on
		// the connection once the probe has its answer, and a closed probe leaves no
		// TIME_WAIT behind (a thousand probes a second would hold 60,000 of them).
		socket.setSoLinger(true, 0);
		return socket;
	}

	private InetAddress resolve(String host, Deadline deadline) throws IOException {
		InetAddress literal = CheckTargets.literal(host);
		if (literal != null) {
			return literal;
		}
		if (!lookups.tryAcquire()) {
			throw new IOException("too many name lookups in flight (" + LOOKUPS + "); " + host + " not resolved");
		}
		CompletableFuture<InetAddress> lookup = new CompletableFuture<>();
		Thread.ofVirtual().name("probe lookup " + host).start(() -> {
			try {
				lookup.complete(InetAddress.getByName(host));
			}
			catch (UnknownHostException | RuntimeException ex) {
				lookup.completeExceptionally(ex);
			}
			finally {
				lookups.release();
			}
		});
		try {
			return lookup.get(Math.max(1, deadline.leftMillis()), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new SocketTimeoutException("no address for " + host + " in time");
		}
		catch (ExecutionException ex) {
			throw ex.getCause() instanceof UnknownHostException unknown ? unknown
					: new IOException("cannot resolve " + host + ": " + ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("interrupted while resolving " + host);
		}
	}

	/**
	 * A target that resolved to an address no check may reach: it was not connected to.
	 */
	static final class NotProbed extends IOException {

		NotProbed(String why) {
			super(why, null);
		}

	}

}
