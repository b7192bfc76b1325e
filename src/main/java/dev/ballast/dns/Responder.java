package dev.ballast.dns;

import java.io.IOException;
import java.net.Inet4Address;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.micrometer.core.instrument.MeterRegistry;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.NameTooLongException;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Turns a query packet into its answer: parses it (dnsjava), asks the view, builds the
 * records and writes them within the size the transport allows, truncating (TC) what does
 * not fit. Counts every query in {@code ballast.dns.queries} by type, answer code,
 * transport and whether the database was unreachable (the answer then comes from memory:
 * DNS has no field to say so, so the answer is the same and the metric tells).
 */
final class Responder {

	/** What Ballast accepts over UDP, advertised in its EDNS0 OPT record. */
	static final int EDNS_PAYLOAD = 4096;

	/** A UDP answer without EDNS0 (RFC 1035). */
	static final int CLASSIC_UDP = 512;

	/** The largest UDP payload over IPv4. */
	static final int MAX_UDP = 65_507;

	/** The largest message TCP's two-byte length can frame. */
	static final int MAX_TCP = 65_535;

	private static final int HEADER = 12;

	enum Transport {

		UDP, TCP

	}

	private final DnsView view;

	private final Name domain;

	private final long ttl;

	private final long firstAnswerMillis;

	private final SOARecord soa;

	private final MeterRegistry meters;

	private final BooleanSupplier reachable;

	Responder(DnsView view, DnsSettings settings, Name domain, MeterRegistry meters, BooleanSupplier reachable) {
		this.view = view;
		this.domain = domain;
		this.ttl = settings.ttl().toSeconds();
		this.firstAnswerMillis = settings.firstAnswerTimeout().toMillis();
		this.meters = meters;
		this.reachable = reachable;
		this.soa = new SOARecord(domain, DClass.IN, ttl, child("ns"), child("hostmaster"), 1, 3600, 600, 86400, ttl);
	}

	/**
	 * The answer to {@code packet}, completed at once unless this node does not follow
	 * the service yet (then SERVFAIL if its state cannot be loaded within
	 * {@link DnsSettings#firstAnswerTimeout()}); {@code null} inside when the packet is
	 * not answered (too short to carry an id, or not a query).
	 */
	CompletableFuture<byte[]> answer(byte[] packet, int length, Transport transport) {
		if (length < HEADER) {
			return dropped(transport);
		}
		Message query;
		try {
			byte[] exact = length == packet.length ? packet : Arrays.copyOf(packet, length);
			query = new Message(exact);
		}
		catch (IOException | RuntimeException ex) {
			return formatError(packet, transport);
		}
		Header header = query.getHeader();
		if (header.getFlag(Flags.QR)) {
			// An answer sent to us: answering it could loop between two responders.
			return dropped(transport);
		}
		Record question = query.getQuestion();
		if (header.getOpcode() != Opcode.QUERY) {
			return done(reply(query, Rcode.NOTIMP), transport, query);
		}
		if (header.getCount(Section.QUESTION) != 1 || question == null) {
			return done(reply(query, Rcode.FORMERR), transport, query);
		}
		if (question.getDClass() != DClass.IN && question.getDClass() != DClass.ANY) {
			return done(reply(query, Rcode.REFUSED), transport, query);
		}
		Asked asked = Asked.of(question.getName(), domain).orElse(null);
		if (asked == null) {
			return done(reply(query, Rcode.REFUSED), transport, query);
		}
		if (asked.kind() == Asked.Kind.DOMAIN) {
			Message reply = reply(query, Rcode.NOERROR);
			reply.addRecord(soa, question.getType() == Type.SOA || question.getType() == Type.ANY ? Section.ANSWER
					: Section.AUTHORITY);
			return done(reply, transport, query);
		}
		if (asked.kind() == Asked.Kind.NOTHING) {
			return done(negative(query, Rcode.NXDOMAIN), transport, query);
		}
		// A copy times out, not the load itself: every other query for the name waits on
		// it too. Null inside when it did not come in time.
		return view.records(asked.service(), asked.zone())
			.copy()
			.completeOnTimeout(null, firstAnswerMillis, TimeUnit.MILLISECONDS)
			.handle((records, failure) -> records == null ? write(reply(query, Rcode.SERVFAIL), transport, query)
					: written(query, asked, records.orElse(null), transport));
	}

	/**
	 * The answer from a service's records: written once per way of asking and revision,
	 * then copied with the query's id.
	 */
	private byte[] written(Message query, Asked asked, ServiceRecords records, Transport transport) {
		if (records == null || asked.kind() != Asked.Kind.SERVICE) {
			return write(records(query, asked, records), transport, query);
		}
		Record question = query.getQuestion();
		ServiceRecords.Asking asking = new ServiceRecords.Asking(question.getName().toString(), question.getType(),
				question.getDClass(), query.getHeader().getFlag(Flags.RD), query.getOPT() != null,
				limit(query, transport));
		ServiceRecords.Written kept = records.written().get(asking);
		if (kept == null) {
			Message reply = records(query, asked, records);
			byte[] wire = write(reply, transport, query);
			if (records.written().size() < ServiceRecords.MAX_WRITTEN) {
				records.written().putIfAbsent(asking, new ServiceRecords.Written(wire.clone(), reply.getRcode()));
			}
			return wire;
		}
		byte[] wire = kept.wire().clone();
		int id = query.getHeader().getID();
		wire[0] = (byte) (id >> 8);
		wire[1] = (byte) id;
		count(typeTag(question.getType()), Rcode.string(kept.rcode()), transport);
		return wire;
	}

	private Message records(Message query, Asked asked, ServiceRecords records) {
		if (records == null) {
			return negative(query, Rcode.NXDOMAIN);
		}
		Record question = query.getQuestion();
		Name owner = question.getName();
		int type = question.getType();
		Message reply = reply(query, Rcode.NOERROR);
		if (asked.kind() == Asked.Kind.INSTANCE) {
			ServiceRecords.Entry entry = records.byLabel().get(asked.label());
			if (entry == null) {
				return negative(query, Rcode.NXDOMAIN);
			}
			address(reply, Section.ANSWER, owner, entry, type);
		}
		else if (type == Type.SRV || type == Type.ANY) {
			for (ServiceRecords.Entry entry : records.listed()) {
				reply.addRecord(
						new SRVRecord(owner, DClass.IN, ttl, 1, entry.srvWeight(), entry.port(), entry.target()),
						Section.ANSWER);
			}
			for (ServiceRecords.Entry entry : records.listed()) {
				address(reply, Section.ADDITIONAL, entry.target(), entry, Type.ANY);
			}
		}
		else if (type == Type.A || type == Type.AAAA) {
			// No weight travels in an address record: only the routable are named.
			records.listed()
				.stream()
				.filter(ServiceRecords.Entry::routable)
				.forEach(entry -> address(reply, Section.ANSWER, owner, entry, type));
		}
		if (reply.getSection(Section.ANSWER).isEmpty()) {
			reply.addRecord(soa, Section.AUTHORITY);
		}
		return reply;
	}

	private void address(Message reply, int section, Name owner, ServiceRecords.Entry entry, int type) {
		if (entry.address() == null) {
			return;
		}
		boolean v4 = entry.address() instanceof Inet4Address;
		if (v4 && (type == Type.A || type == Type.ANY)) {
			reply.addRecord(new ARecord(owner, DClass.IN, ttl, entry.address()), section);
		}
		else if (!v4 && (type == Type.AAAA || type == Type.ANY)) {
			reply.addRecord(new AAAARecord(owner, DClass.IN, ttl, entry.address()), section);
		}
	}

	private Message negative(Message query, int rcode) {
		Message reply = reply(query, rcode);
		reply.addRecord(soa, Section.AUTHORITY);
		return reply;
	}

	private static Message reply(Message query, int rcode) {
		Message reply = new Message(query.getHeader().getID());
		Header header = reply.getHeader();
		header.setFlag(Flags.QR);
		header.setOpcode(query.getHeader().getOpcode());
		if (query.getHeader().getFlag(Flags.RD)) {
			header.setFlag(Flags.RD);
		}
		header.setRcode(rcode);
		if (query.getHeader().getOpcode() == Opcode.QUERY && rcode != Rcode.REFUSED && rcode != Rcode.FORMERR
				&& rcode != Rcode.NOTIMP) {
			header.setFlag(Flags.AA);
		}
		Record question = query.getQuestion();
		if (question != null && query.getHeader().getCount(Section.QUESTION) == 1) {
			reply.addRecord(question, Section.QUESTION);
		}
		if (query.getOPT() != null) {
			reply.addRecord(new OPTRecord(EDNS_PAYLOAD, 0, 0), Section.ADDITIONAL);
		}
		return reply;
	}

	private CompletableFuture<byte[]> done(Message reply, Transport transport, Message query) {
		return CompletableFuture.completedFuture(write(reply, transport, query));
	}

	private byte[] write(Message reply, Transport transport, Message query) {
		byte[] wire = reply.toWire(limit(query, transport));
		Record question = query.getQuestion();
		count(question == null ? "NONE" : typeTag(question.getType()), Rcode.string(reply.getRcode()), transport);
		return wire;
	}

	private static int limit(Message query, Transport transport) {
		if (transport == Transport.TCP) {
			return MAX_TCP;
		}
		OPTRecord opt = query.getOPT();
		return opt == null ? CLASSIC_UDP : Math.clamp(opt.getPayloadSize(), CLASSIC_UDP, MAX_UDP);
	}

	private CompletableFuture<byte[]> formatError(byte[] packet, Transport transport) {
		// The header parsed (12 bytes are there): answer its id, without the rest.
		int id = ((packet[0] & 0xff) << 8) | (packet[1] & 0xff);
		if ((packet[2] & 0x80) != 0) {
			return dropped(transport);
		}
		Header header = new Header(id);
		header.setFlag(Flags.QR);
		header.setOpcode((packet[2] >> 3) & 0xf);
		header.setRcode(Rcode.FORMERR);
		count("NONE", "FORMERR", transport);
		return CompletableFuture.completedFuture(header.toWire());
	}

	private CompletableFuture<byte[]> dropped(Transport transport) {
		count("NONE", "DROPPED", transport);
		return CompletableFuture.completedFuture(null);
	}

	private void count(String type, String rcode, Transport transport) {
		meters
			.counter("ballast.dns.queries", "type", type, "rcode", rcode, "transport",
					transport.name().toLowerCase(Locale.ROOT), "stale", Boolean.toString(!reachable.getAsBoolean()))
			.increment();
	}

	/** The type as a tag: the common ones by name, the rest as OTHER (bounded tags). */
	private static String typeTag(int type) {
		return switch (type) {
			case Type.A -> "A";
			case Type.AAAA -> "AAAA";
			case Type.SRV -> "SRV";
			case Type.ANY -> "ANY";
			case Type.SOA -> "SOA";
			default -> "OTHER";
		};
	}

	private Name child(String label) {
		try {
			return Name.concatenate(Name.fromString(label), domain);
		}
		catch (TextParseException | NameTooLongException ex) {
			throw new IllegalArgumentException("domain too long: " + domain, ex);
		}
	}

}
