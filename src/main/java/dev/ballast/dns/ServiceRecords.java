package dev.ballast.dns;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.ballast.registry.Health;
import dev.ballast.registry.InstanceList;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.Mode;
import org.xbill.DNS.Name;
import org.xbill.DNS.NameTooLongException;
import org.xbill.DNS.TextParseException;

/**
 * A service's instances as DNS data, at one revision. An instance is listed when it is
 * routable, with its SRV weight from {@link SrvWeights}, or when it drains at effective
 * weight 0 (draining or drained, lease current), with SRV weight 0, so that HAProxy keeps
 * its slot and stops sending it new traffic rather than cutting it; any other instance at
 * effective weight 0 (maintenance, expired lease, weight 0) is left out. A zone's name
 * ({@code _<service>._tcp.<zone>.service}) lists the same instances with the zone's
 * weights.
 *
 * <p>
 * The SRV target of an instance registered with an IP address is
 * {@code <label>.<service>.instance.<domain>}, with the address as glue, where the label
 * is the first 16 hex digits of the SHA-256 of the instance id: ids may hold characters
 * and lengths no DNS label can, and the target must stay the same from one answer to the
 * next for HAProxy to keep the instance in the same slot. The target of an instance
 * registered with a host name is that host name, resolved by the client's own DNS.
 *
 * <p>
 * It also keeps the answers written from it: most queries ask the same question again and
 * again (HAProxy every second), and the bytes of an answer depend only on these records
 * and on how the question was asked, save the id.
 *
 * @param revision the service revision the records are current at
 * @param listed the instances with an SRV record, sorted by id
 * @param byLabel the listed instances with an address, by label
 * @param written answers written from these records, by how the question was asked
 */
record ServiceRecords(long revision, List<Entry> listed, Map<String, Entry> byLabel, Map<Asking, Written> written) {

	/** Answers kept per revision at most: the forms of a name times types and sizes. */
	static final int MAX_WRITTEN = 64;

	/**
	 * Everything of a query its answer's bytes depend on, but the id.
	 *
	 * @param name the name as asked, case included
	 * @param type the type asked for
	 * @param dclass the class asked for
	 * @param recursion whether the query asked for recursion (echoed)
	 * @param edns whether it carried an OPT record
	 * @param limit the largest answer the transport takes
	 */
	record Asking(String name, int type, int dclass, boolean recursion, boolean edns, int limit) {
	}

	/**
	 * @param wire the answer, with the id of the query it was first written for
	 * @param rcode its answer code
	 */
	record Written(byte[] wire, int rcode) {
	}

	/**
	 * @param target the SRV target
	 * @param port the instance's port
	 * @param srvWeight its SRV weight
	 * @param address its address; null when it registered with a host name
	 */
	record Entry(Name target, int port, int srvWeight, InetAddress address) {

		boolean routable() {
			return srvWeight > 0;
		}

	}

	/**
	 * The records of {@code list} with the weights of {@code view}: the list itself for
	 * the flat view, or its view for one zone ({@link dev.ballast.registry.ZoneView}),
	 * the same instances in the same order. A zone's records list the same instances as
	 * the flat ones: an instance the zone's view gives no traffic (one of another zone,
	 * most of the time) is listed with SRV weight 0, as a drained one, so that HAProxy
	 * keeps its slot and only stops sending it new requests when a zone stops spilling
	 * over.
	 */
	static ServiceRecords of(InstanceList list, InstanceList view, Name domain) {
		int largest = view.instances()
			.stream()
			.filter(InstanceView::routable)
			.mapToInt(instance -> instance.effectiveWeight().value())
			.max()
			.orElse(0);
		Name service = child(domain, list.service(), Asked.INSTANCE);
		List<Entry> listed = new ArrayList<>();
		Map<String, Entry> byLabel = new LinkedHashMap<>();
		for (int i = 0; i < list.instances().size(); i++) {
			InstanceView instance = list.instances().get(i);
			if (!instance.routable() && !drainingAtZero(instance)) {
				continue;
			}
			InstanceView seen = view.instances().get(i);
			int weight = seen.routable() ? SrvWeights.srvWeight(seen.effectiveWeight().value(), largest) : 0;
			Optional<InetAddress> address = literal(instance.address());
			if (address.isPresent()) {
				String label = label(instance.id());
				Entry entry = new Entry(child(service, label), instance.port().value(), weight, address.get());
				listed.add(entry);
				byLabel.put(label, entry);
			}
			else {
				hostName(instance.address())
					.ifPresent(host -> listed.add(new Entry(host, instance.port().value(), weight, null)));
			}
		}
		return new ServiceRecords(list.revision(), List.copyOf(listed), Map.copyOf(byLabel), new ConcurrentHashMap<>());
	}

	private static boolean drainingAtZero(InstanceView instance) {
		return (instance.mode() == Mode.DRAINING || instance.mode() == Mode.DRAINED)
				&& instance.health() == Health.PASSING && instance.effectiveWeight().value() == 0;
	}

	/** The label of an instance's SRV target. */
	static String label(String instanceId) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(instanceId.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 8);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("every Java platform has SHA-256", ex);
		}
	}

	private static Optional<InetAddress> literal(String address) {
		String bare = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1)
				: address;
		try {
			// Literals only: ofLiteral never asks a resolver.
			return Optional.of(bare.indexOf(':') >= 0 ? Inet6Address.ofLiteral(bare) : Inet4Address.ofLiteral(bare));
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

	private static Optional<Name> hostName(String address) {
		if (address.indexOf(':') >= 0 || address.indexOf('%') >= 0 || address.indexOf('[') >= 0) {
			// An IPv6 address with a zone or other shape DNS cannot carry: no record.
			return Optional.empty();
		}
		try {
			return Optional.of(Name.fromString(address, Name.root));
		}
		catch (TextParseException ex) {
			return Optional.empty();
		}
	}

	private static Name child(Name parent, String... labels) {
		try {
			Name name = parent;
			for (int i = labels.length - 1; i >= 0; i--) {
				name = Name.concatenate(Name.fromString(labels[i]), name);
			}
			return name;
		}
		catch (TextParseException | NameTooLongException ex) {
			throw new IllegalArgumentException("not a DNS name under " + parent + ": " + String.join(".", labels), ex);
		}
	}

}
