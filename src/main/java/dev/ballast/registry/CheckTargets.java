package dev.ballast.registry;

import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import dev.ballast.database.DatabaseServers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Which addresses the registry may probe. A registry that connects to whatever address a
 * registrant sends is a server-side request forgery: a registrant could make it reach the
 * cloud's metadata service, a database beside it, or the registry's own admin port, and
 * read the answer in the check's output. So a check may only target its own instance (its
 * address exactly and, unless {@code ballast.checks.any-port}, its port), or an address
 * in a network the operator allows ({@code ballast.checks.allowed-networks}). Link-local
 * addresses (169.254.0.0/16, where clouds serve instance metadata, and fe80::/10), the
 * unspecified address and multicast are refused even as an instance's own address unless
 * an allowed network holds them, and a loopback address is probed only on its instance's
 * own port. Whatever the networks allowed, no check reaches the node's own listening
 * ports on any of its addresses ({@link OwnEndpoints}), the database's servers, or an
 * address (and port) in {@code ballast.checks.denied-networks}.
 * <p>
 * Two moments apply the rule: a registration ({@link #require}), where a host name is
 * compared as written and never resolved (a slow resolver must not hold a write), and
 * each probe ({@link #refusal}), which resolves the name once, inside its deadline, and
 * holds the address it is about to connect to to the same rule, so that a name that
 * resolves (or is rebound) to a refused address is not connected to.
 */
@Component
public final class CheckTargets {

	private final List<Network> allowed;

	private final List<Denied> denied;

	private final boolean anyPort;

	private final OwnEndpoints own;

	/**
	 * A rule with no denied networks and no endpoints of a node's own, for tests of the
	 * rule apart from a node.
	 * @param allowedNetworks CIDR blocks ({@code 10.20.0.0/16}, {@code fd00::/8})
	 * @param anyPort whether a check of the instance's own host may use another port
	 * @throws IllegalArgumentException naming a block that is not one
	 */
	public CheckTargets(List<String> allowedNetworks, boolean anyPort) {
		this(allowedNetworks, List.of(), anyPort, OwnEndpoints.none());
	}

	@Autowired
	CheckTargets(CheckSettings settings, OwnEndpoints own) {
		this(settings.allowedNetworks(), settings.deniedNetworks(), settings.anyPort(), own);
	}

	CheckTargets(List<String> allowedNetworks, List<String> deniedNetworks, boolean anyPort, OwnEndpoints own) {
		this.allowed = allowedNetworks.stream().map(cidr -> Network.parse(cidr, "allowed-networks")).toList();
		this.denied = deniedNetworks.stream().map(Denied::parse).toList();
		this.anyPort = anyPort;
		this.own = own;
	}

	/**
	 * At registration.
	 * @throws CheckRefusal when {@code check} may not be probed for an instance at
	 * {@code address}:{@code port}
	 */
	public void require(CheckDefinition check, String address, Port port) {
		String field = check.kind().name().toLowerCase(Locale.ROOT);
		String host = check.host();
		InetAddress literal = literal(host);
		boolean allowedNetwork = literal != null && allowed(literal);
		if (!allowedNetwork && !sameHost(host, literal, address)) {
			throw new CheckRefusal(field,
					"a check may only probe its own instance (%s:%s) or a network the operator ".formatted(address,
							port) + "allows (ballast.checks.allowed-networks); got host "
							+ CheckDefinition.quoted(host));
		}
		if (literal != null) {
			refusal(literal, check.port(), port).ifPresent(detail -> {
				throw new CheckRefusal(field, detail + "; got " + CheckDefinition.quoted(check.target()));
			});
		}
		else {
			for (DatabaseServers.Server server : own.database()) {
				if (server.host().equalsIgnoreCase(host) && server.port() == check.port().value()) {
					throw new CheckRefusal(field,
							databaseRefusal(server) + "; got " + CheckDefinition.quoted(check.target()));
				}
			}
		}
		if (!anyPort && !allowedNetwork && !check.port().equals(port)) {
			throw new CheckRefusal(field,
					"a check probes the instance's own port %s (ballast.checks.any-port allows ".formatted(port)
							+ "others); got port " + check.port());
		}
	}

	/**
	 * At each probe, before connecting: why {@code address}:{@code port}, which a check
	 * of an instance on {@code instancePort} resolved to, may not be connected to.
	 * @return the reason, or empty when it may be
	 */
	public Optional<String> refusal(InetAddress address, Port port, Port instancePort) {
		if (own.ports().contains(port.value()) && OwnEndpoints.local(address)) {
			return Optional
				.of("the registry's own port %d (its HTTP, management, DNS or xDS listener) ".formatted(port.value())
						+ "is never probed, on any of its addresses");
		}
		DatabaseServers.Server database = own.database(address, port.value());
		if (database != null) {
			return Optional.of(databaseRefusal(database));
		}
		for (Denied entry : denied) {
			if (entry.holds(address, port)) {
				return Optional.of("%s port %d is in ballast.checks.denied-networks (%s)"
					.formatted(address.getHostAddress(), port.value(), entry.spelled()));
			}
		}
		if (allowed(address)) {
			return Optional.empty();
		}
		if (address.isLinkLocalAddress() || address.isAnyLocalAddress() || address.isMulticastAddress()) {
			return Optional.of("the registry does not probe link-local, unspecified or multicast addresses "
					+ "(169.254.0.0/16 serves cloud instance metadata) unless ballast.checks.allowed-networks holds "
					+ "them: " + address.getHostAddress());
		}
		if (address.isLoopbackAddress() && !port.equals(instancePort)) {
			return Optional.of("a loopback address is probed only on its instance's own port %s (other services "
				.formatted(instancePort) + "of the machine listen there) unless ballast.checks.allowed-networks "
					+ "holds it: " + address.getHostAddress() + " port " + port);
		}
		return Optional.empty();
	}

	private boolean allowed(InetAddress address) {
		return allowed.stream().anyMatch(network -> network.holds(address));
	}

	private static String databaseRefusal(DatabaseServers.Server server) {
		return "the registry's database (%s port %d) is never probed".formatted(server.host(), server.port());
	}

	private static boolean sameHost(String host, InetAddress literal, String address) {
		String bare = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1)
				: address;
		InetAddress own = literal(bare);
		if (literal != null || own != null) {
			return literal != null && literal.equals(own);
		}
		return host.equalsIgnoreCase(bare);
	}

	/** The address a literal spells, or null for a host name (never resolved here). */
	public static InetAddress literal(String host) {
		try {
			return InetAddress.ofLiteral(host);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/** A CIDR block. */
	record Network(byte[] prefix, int bits) {

		static Network parse(String cidr, String property) {
			int slash = cidr.indexOf('/');
			InetAddress address = literal(slash < 0 ? cidr : cidr.substring(0, slash));
			String named = "ballast.checks." + property;
			if (address == null) {
				throw new IllegalArgumentException(named + ": not a network: " + cidr);
			}
			int max = address.getAddress().length * 8;
			int bits;
			try {
				bits = slash < 0 ? max : Integer.parseInt(cidr.substring(slash + 1));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(named + ": not a prefix length: " + cidr);
			}
			if (bits < 0 || bits > max) {
				throw new IllegalArgumentException(named + ": prefix out of range: " + cidr);
			}
			return new Network(address.getAddress(), bits);
		}

		boolean holds(InetAddress address) {
			byte[] bytes = address.getAddress();
			if (bytes.length != prefix.length) {
				return false;
			}
			for (int bit = 0; bit < bits; bit++) {
				int mask = 0x80 >>> (bit % 8);
				if ((bytes[bit / 8] & mask) != (prefix[bit / 8] & mask)) {
					return false;
				}
			}
			return true;
		}

	}

	/**
	 * An entry of {@code ballast.checks.denied-networks}: a CIDR block, every port of it
	 * or one ({@code 10.0.0.0/8}, {@code 10.1.2.3:6379}, {@code 127.0.0.0/8:6379},
	 * {@code fd00::/8}, {@code [fd00::/8]:6379}).
	 *
	 * @param network the addresses
	 * @param port the one port denied, or 0 for all
	 * @param spelled as configured
	 */
	record Denied(Network network, int port, String spelled) {

		static Denied parse(String entry) {
			String cidr = entry;
			String port = null;
			if (entry.startsWith("[")) {
				int close = entry.indexOf(']');
				if (close < 0 || (close + 1 < entry.length() && entry.charAt(close + 1) != ':')) {
					throw new IllegalArgumentException("ballast.checks.denied-networks: not [network]:port: " + entry);
				}
				cidr = entry.substring(1, close);
				port = close + 1 < entry.length() ? entry.substring(close + 2) : null;
			}
			else if (entry.indexOf(':') == entry.lastIndexOf(':') && entry.indexOf(':') > 0) {
				// One colon: an IPv4 network and a port (an IPv6 one has several).
				cidr = entry.substring(0, entry.indexOf(':'));
				port = entry.substring(entry.indexOf(':') + 1);
			}
			int number = 0;
			if (port != null) {
				try {
					number = Integer.parseInt(port);
				}
				catch (NumberFormatException ex) {
					number = -1;
				}
				if (!Port.holds(number)) {
					throw new IllegalArgumentException(
							"ballast.checks.denied-networks: the port must be " + Port.EXPECTED + ": " + entry);
				}
			}
			return new Denied(Network.parse(cidr, "denied-networks"), number, entry);
		}

		boolean holds(InetAddress address, Port target) {
			return (port == 0 || port == target.value()) && network.holds(address);
		}

	}

}
