package dev.ballast.dns;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

import dev.ballast.registry.ServiceName;
import dev.ballast.registry.ZoneView;
import dev.ballast.web.InvalidRequestException;
import org.xbill.DNS.Name;

/**
 * What a query name inside the domain asks for. Names are compared without regard to
 * case; relative to the domain they are:
 * <ul>
 * <li>{@code <service>} and {@code <service>.service}, Consul's form, and
 * {@code _<service>._tcp} and {@code _<service>._tcp.service}, RFC 2782's: a
 * service;</li>
 * <li>{@code _<service>._tcp.<zone>.service}: a service as a balancer in the zone sees it
 * (docs/locality.md); the zone is every label between {@code _tcp} and {@code service},
 * so a zone name with dots ({@code eu-1.a}) is several labels, and it keeps the case it
 * was asked in, to be matched against the zones of the service's instances
 * ({@link DnsView});</li>
 * <li>{@code <label>.<service>.instance}: the target of one of the service's SRV records;
 * </li>
 * <li>the domain itself (its SOA).</li>
 * </ul>
 * Anything else inside the domain names nothing.
 *
 * @param kind what the name is
 * @param service the service, for a service or an instance
 * @param label the instance's label, for an instance
 * @param zone the zone whose view is asked for, as asked; {@code null} for the flat view
 */
record Asked(Kind kind, ServiceName service, String label, String zone) {

	static final String SERVICE = "service";

	static final String INSTANCE = "instance";

	private static final Asked NOTHING = new Asked(Kind.NOTHING, null, null, null);

	enum Kind {

		/** The domain itself. */
		DOMAIN,
		/** A service's instances. */
		SERVICE,
		/** One instance, by the label of its SRV target. */
		INSTANCE,
		/** A name inside the domain that cannot exist. */
		NOTHING

	}

	/** What {@code name} asks for; empty when it is outside {@code domain}. */
	static Optional<Asked> of(Name name, Name domain) {
		if (!name.subdomain(domain)) {
			return Optional.empty();
		}
		int relative = name.labels() - domain.labels();
		String[] asked = new String[relative];
		String[] labels = new String[relative];
		for (int i = 0; i < relative; i++) {
			asked[i] = name.getLabelString(i);
			labels[i] = asked[i].toLowerCase(Locale.ROOT);
		}
		return Optional.of(switch (relative) {
			case 0 -> new Asked(Kind.DOMAIN, null, null, null);
			case 1 -> service(labels[0], null);
			case 2 -> labels[1].equals(SERVICE) ? service(labels[0], null)
					: labels[1].equals("_tcp") ? rfc2782(labels[0], null) : NOTHING;
			case 3 -> labels[2].equals(SERVICE) && labels[1].equals("_tcp") ? rfc2782(labels[0], null)
					: labels[2].equals(INSTANCE) ? instance(labels[1], labels[0]) : NOTHING;
			default -> labels[relative - 1].equals(SERVICE) && labels[1].equals("_tcp")
					? zoned(labels[0], String.join(".", Arrays.copyOfRange(asked, 2, relative - 1))) : NOTHING;
		});
	}

	/**
	 * A zone's view: only under a zone name a registration could carry (dnsjava writes an
	 * odd byte of a label escaped, {@code \000}, which no zone name holds).
	 */
	private static Asked zoned(String label, String zone) {
		return ZoneView.named(zone) ? rfc2782(label, zone) : NOTHING;
	}

	private static Asked rfc2782(String label, String zone) {
		return label.startsWith("_") ? service(label.substring(1), zone) : NOTHING;
	}

	private static Asked service(String label, String zone) {
		return serviceName(label).map(service -> new Asked(Kind.SERVICE, service, null, zone)).orElse(NOTHING);
	}

	private static Asked instance(String service, String label) {
		return serviceName(service).map(name -> new Asked(Kind.INSTANCE, name, label, null)).orElse(NOTHING);
	}

	private static Optional<ServiceName> serviceName(String label) {
		try {
			return Optional.of(ServiceName.of(label));
		}
		catch (InvalidRequestException ex) {
			// Not a service name, so no service can be registered under it.
			return Optional.empty();
		}
	}

}
