package dev.ballast.registry;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ballast.database.DatabaseServers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * What the node itself listens on and the database it talks to: endpoints no check may
 * reach, whatever a registrant registers, because a check's output would carry their
 * answers to whoever reads it ({@link CheckTargets}). The ports are read by property name
 * when asked, so that a port known only once its server has started (the HTTP port
 * {@code local.server.port} when {@code server.port=0}) or a listener another module adds
 * ({@code ballast.xds.port}) is covered without this module knowing it.
 */
@Component
public class OwnEndpoints {

	/**
	 * The node's listening ports: as configured, and as Spring Boot publishes the ports
	 * its servers bound (for {@code server.port=0}). The DNS and xDS ports count as
	 * configured (a port 0 there, chosen at start, is not known here; production
	 * configures them).
	 */
	static final List<String> PORT_PROPERTIES = List.of("server.port", "local.server.port", "management.server.port",
			"local.management.port", "ballast.dns.port", "ballast.xds.port");

	/** How long the database servers' resolved addresses are kept. */
	private static final long RESOLVED_FOR_NANOS = 60_000_000_000L;

	private final Environment environment;

	private final List<DatabaseServers.Server> database;

	private volatile Resolved resolved;

	@Autowired
	OwnEndpoints(Environment environment, DatabaseServers database) {
		this(environment, database.servers());
	}

	OwnEndpoints(Environment environment, List<DatabaseServers.Server> database) {
		this.environment = environment;
		this.database = List.copyOf(database);
	}

	/** No endpoints at all, for a rule tested apart from a node. */
	static OwnEndpoints none() {
		return new OwnEndpoints(null, List.of());
	}

	/**
	 * The ports this node listens on (HTTP, management, DNS, xDS), as far as it knows.
	 */
	Set<Integer> ports() {
		Set<Integer> ports = new TreeSet<>();
		if (environment == null) {
			return ports;
		}
		for (String property : PORT_PROPERTIES) {
			String value = environment.getProperty(property);
			try {
				int port = value == null ? 0 : Integer.parseInt(value.strip());
				if (Port.holds(port)) {
					ports.add(port);
				}
			}
			catch (NumberFormatException ex) {
				// Not a port: the module that reads it refuses to start with it.
			}
		}
		return ports;
	}

	/** The database's servers, as its JDBC URL names them. */
	List<DatabaseServers.Server> database() {
		return database;
	}

	/**
	 * Whether {@code address} is one of this machine's: loopback, unspecified (which
	 * connects to the machine itself), or held by one of its network interfaces. A node
	 * listening on all addresses is reached through any of them.
	 */
	static boolean local(InetAddress address) {
		if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
			return true;
		}
		try {
			return NetworkInterface.getByInetAddress(address) != null;
		}
		catch (SocketException ex) {
			return false;
		}
	}

	/**
	 * Whether a connection to {@code address}:{@code port} reaches one of the database's
	 * servers: the server's own address, or any of this machine's when the server is on
	 * it. Names are resolved at most once a minute (a name that does not resolve counts
	 * by its name only, which {@link CheckTargets} compares at registration).
	 */
	DatabaseServers.Server database(InetAddress address, int port) {
		Resolved known = resolved();
		for (int i = 0; i < database.size(); i++) {
			DatabaseServers.Server server = database.get(i);
			if (server.port() != port) {
				continue;
			}
			for (InetAddress serverAddress : known.addresses.get(i)) {
				if (serverAddress.equals(address) || (local(serverAddress) && local(address))) {
					return server;
				}
			}
		}
		return null;
	}

	private Resolved resolved() {
		Resolved known = resolved;
		if (known == null || System.nanoTime() - known.at > RESOLVED_FOR_NANOS) {
			List<List<InetAddress>> addresses = new ArrayList<>();
			for (DatabaseServers.Server server : database) {
				try {
					addresses.add(List.of(InetAddress.getAllByName(server.host())));
				}
				catch (UnknownHostException ex) {
					addresses.add(List.of());
				}
			}
			known = new Resolved(System.nanoTime(), addresses);
			resolved = known;
		}
		return known;
	}

	/** The database servers' addresses, by server, and when they were resolved. */
	private record Resolved(long at, List<List<InetAddress>> addresses) {
	}

}
