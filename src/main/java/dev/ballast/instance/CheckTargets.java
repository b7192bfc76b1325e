package dev.ballast.instance;

import java.net.InetAddress;
import java.util.List;
import java.util.Locale;

/**
 * Which addresses the registry may probe. A registry that connects to whatever address a
 * registrant sends is a server-side request forgery: a registrant could make it reach the
 * cloud's metadata service, a database beside it, or the registry's own admin port, and
 * read the answer in the check's output. So a check may only target its own instance (its
 * address exactly and, unless {@code ballast.checks.any-port}, its port), or an address
 * in a network the operator allows ({@code ballast.checks.allowed-networks}). Link-local
 * addresses (169.254.0.0/16, where clouds serve instance metadata, and fe80::/10), the
 * unspecified address and multicast are refused even as an instance's own address unless
 * an allowed network holds them.
 */
public final class CheckTargets {

	private final List<Network> allowed;

	private final boolean anyPort;

	/**
	 * @param allowedNetworks CIDR blocks ({@code 10.20.0.0/16}, {@code fd00::/8})
	 * @param anyPort whether a check of the instance's own host may use another port
	 * @throws IllegalArgumentException naming a block that is not one
	 */
	public CheckTargets(List<String> allowedNetworks, boolean anyPort) {
		this.allowed = allowedNetworks.stream().map(Network::parse).toList();
		this.anyPort = anyPort;
	}

	/**
	 * @throws CheckRefusal when {@code check} may not be probed for an instance at
	 * {@code address}:{@code port}
	 */
	public void require(CheckDefinition check, String address, Port port) {
		String field = check.kind().name().toLowerCase(Locale.ROOT);
		String host = check.host();
		InetAddress literal = literal(host);
		if (literal != null && allowed.stream().anyMatch(network -> network.holds(literal))) {
			return;
		}
		if (!sameHost(host, literal, address)) {
			throw new CheckRefusal(field,
					"a check may only probe its own instance (%s:%s) or a network the operator ".formatted(address,
							port) + "allows (ballast.checks.allowed-networks); got host "
							+ CheckDefinition.quoted(host));
		}
		if (literal != null
				&& (literal.isLinkLocalAddress() || literal.isAnyLocalAddress() || literal.isMulticastAddress())) {
			throw new CheckRefusal(field, "the registry does not probe link-local, unspecified or multicast addresses "
					+ "(169.254.0.0/16 serves cloud instance metadata) unless ballast.checks.allowed-networks holds "
					+ "them; got " + CheckDefinition.quoted(host));
		}
		if (!anyPort && !check.port().equals(port)) {
			throw new CheckRefusal(field,
					"a check probes the instance's own port %s (ballast.checks.any-port allows ".formatted(port)
							+ "others); got port " + check.port());
		}
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
	static InetAddress literal(String host) {
		try {
			return InetAddress.ofLiteral(host);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/** A CIDR block. */
	record Network(byte[] prefix, int bits) {

		static Network parse(String cidr) {
			int slash = cidr.indexOf('/');
			InetAddress address = literal(slash < 0 ? cidr : cidr.substring(0, slash));
			if (address == null) {
				throw new IllegalArgumentException("ballast.checks.allowed-networks: not a network: " + cidr);
			}
			int max = address.getAddress().length * 8;
			int bits;
			try {
				bits = slash < 0 ? max : Integer.parseInt(cidr.substring(slash + 1));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("ballast.checks.allowed-networks: not a prefix length: " + cidr);
			}
			if (bits < 0 || bits > max) {
				throw new IllegalArgumentException("ballast.checks.allowed-networks: prefix out of range: " + cidr);
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

}
