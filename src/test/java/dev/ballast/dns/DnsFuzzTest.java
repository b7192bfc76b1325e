package dev.ballast.dns;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Bad packets through the real sockets: random bytes, truncated and mutated queries,
 * wrong section counts, compression pointer loops, names over 255 octets, labels over 63,
 * odd opcodes, classes and flags, names inside and outside the domain. The responder
 * never stops answering (a good query right after each bad one is answered within a
 * bound), every answer it sends parses and names nothing outside the domain, and a query
 * outside the domain is refused.
 */
@RegistryTest
class DnsFuzzTest {

	private static final Name DOMAIN = Name.fromConstantString("ballast.");

	/** Every answer, bad packets' included, comes within this. */
	private static final Duration BOUND = Duration.ofSeconds(2);

	@LocalServerPort
	int port;

	@Autowired
	DnsServer server;

	String service;

	@BeforeEach
	void setUp() {
		service = Names.service("dnsfuzz");
		Api api = Api.on(port);
		for (int i = 1; i <= 3; i++) {
			assertThat(api
				.put("/v1/services/%s/instances/i%d".formatted(service, i),
						Registration.at("10.9.0." + i, 80).weight(100 * i).zone(i == 1 ? "za" : "zb"))
				.status()).isEqualTo(201);
		}
		// Zone names are answered from zone views (docs/locality.md).
		assertThat(api
			.patch("/v1/services/" + service, "{\"locality\":{\"mode\":\"PREFER_LOCAL\",\"maxCrossZonePercent\":20}}")
			.status()).isEqualTo(200);
		DnsClient dns = new DnsClient(server.port());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> DnsClient.answers(dns.udp(service + ".ballast.", Type.SRV)).size() == 3);
	}

	@Test
	void badPacketsOverUdpNeverStopTheResponderNorGetAnAnswerOutsideTheDomain() throws IOException {
		try (DatagramSocket socket = new DatagramSocket()) {
			socket.setSoTimeout((int) BOUND.toMillis());
			InetSocketAddress responder = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
			int[] probeId = { 0 };
			qt(600).forAll(packets()).checkAssert(packet -> {
				try {
					socket.send(new DatagramPacket(packet.bytes(), packet.bytes().length, responder));
					probeId[0] = (probeId[0] + 1) & 0xffff;
					byte[] probe = probe(probeId[0]);
					long sent = System.nanoTime();
					socket.send(new DatagramPacket(probe, probe.length, responder));
					// Answers to earlier bad packets may come first: each is checked.
					byte[] buffer = new byte[65_535];
					while (true) {
						DatagramPacket answer = new DatagramPacket(buffer, buffer.length);
						socket.receive(answer);
						Message message = checked(Arrays.copyOf(buffer, answer.getLength()), packet);
						if (message.getHeader().getID() == probeId[0] && message.getQuestion() != null
								&& message.getQuestion().getName().equals(probeName())) {
							assertThat(DnsClient.answers(message)).hasSize(3);
							break;
						}
						assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(BOUND);
					}
				}
				catch (SocketTimeoutException ex) {
					throw new AssertionError("no answer to a good query within " + BOUND + " after " + packet, ex);
				}
				catch (IOException ex) {
					throw new AssertionError(ex);
				}
			});
		}
	}

	@Test
	void badPacketsOverTcpAreAnsweredOrTheConnectionClosedWithinTheBound() {
		qt(300).forAll(packets()).checkAssert(packet -> {
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 2000);
				socket.setSoTimeout((int) BOUND.toMillis());
				DataOutputStream out = new DataOutputStream(socket.getOutputStream());
				out.writeShort(packet.bytes().length);
				out.write(packet.bytes());
				out.writeShort(probe(7).length);
				out.write(probe(7));
				out.flush();
				DataInputStream in = new DataInputStream(socket.getInputStream());
				List<Message> answers = new ArrayList<>();
				try {
					while (answers.size() < 2) {
						byte[] answer = new byte[in.readUnsignedShort()];
						in.readFully(answer);
						answers.add(checked(answer, packet));
					}
				}
				catch (java.io.EOFException ex) {
					// Closed after a packet not worth answering: allowed, within the
					// bound.
				}
				if (answers.size() == 2) {
					assertThat(DnsClient.answers(answers.get(1))).hasSize(3);
				}
			}
			catch (SocketTimeoutException ex) {
				throw new AssertionError("TCP stalled after " + packet, ex);
			}
			catch (IOException ex) {
				// Reset by the server after a bad frame: it did not stall.
			}
		});
		assertThat(DnsClient
			.answers(new DnsClient(server.port()).tcp(DnsClient.query(probeName().toString(), Type.SRV, null))))
			.hasSize(3);
	}

	@Test
	void aClientThatStopsMidQueryIsDisconnectedAfterTheTimeout() throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()), 2000);
			socket.setSoTimeout(15_000);
			DataOutputStream out = new DataOutputStream(socket.getOutputStream());
			out.writeShort(100);
			out.write(new byte[10]);
			out.flush();
			long started = System.nanoTime();
			assertThat(socket.getInputStream().read()).isEqualTo(-1);
			// ballast.dns.tcp-timeout is 5 s by default.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
		}
	}

	private Name probeName() {
		return Name.fromConstantString(service + ".ballast.");
	}

	private byte[] probe(int id) {
		Message query = DnsClient.query(probeName().toString(), Type.SRV, 4096);
		query.getHeader().setID(id);
		return query.toWire();
	}

	/** An answer parses, names only the domain, and refuses a query outside it. */
	private static Message checked(byte[] wire, Packet packet) {
		Message message = DnsClient.parse(wire);
		for (int section : new int[] { Section.QUESTION, Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL }) {
			for (Record record : message.getSection(section)) {
				if (record.getType() == Type.OPT) {
					continue;
				}
				boolean inside = record.getName().subdomain(DOMAIN);
				if (section == Section.QUESTION) {
					if (!inside) {
						assertThat(message.getRcode()).as("answer to %s", packet)
							.isIn(Rcode.REFUSED, Rcode.FORMERR, Rcode.NOTIMP);
					}
				}
				else {
					assertThat(inside).as("%s in the answer to %s", record, packet).isTrue();
				}
			}
		}
		return message;
	}

	/** A bad packet, described for the failure message. */
	record Packet(String kind, byte[] bytes) {

		@Override
		public String toString() {
			return kind + " " + java.util.HexFormat.of().formatHex(bytes);
		}

	}

	private Gen<Packet> packets() {
		return integers().between(0, 10).zip(longs().all(), (kind, seed) -> packet(kind, new Random(seed)));
	}

	private Packet packet(int kind, Random random) {
		byte[] good = goodQuery(random);
		return switch (kind) {
			case 0 -> new Packet("random", bytes(random, random.nextInt(600)));
			case 1 -> new Packet("truncated", Arrays.copyOf(good, random.nextInt(good.length)));
			case 2 -> {
				byte[] flipped = good.clone();
				for (int i = 0, n = 1 + random.nextInt(8); i < n; i++) {
					flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
				}
				yield new Packet("flipped", flipped);
			}
			case 3 -> {
				ByteBuffer counts = ByteBuffer.wrap(good.clone());
				for (int i = 0; i < 4; i++) {
					counts.putShort(4 + 2 * i, (short) random.nextInt(65_536));
				}
				yield new Packet("counts", counts.array());
			}
			case 4 -> new Packet("pointer loop", pointerLoop(random));
			case 5 -> new Packet("long name", withName(random, longName(random)));
			case 6 -> new Packet("long label", withName(random, longLabel(random)));
			case 7 -> new Packet("outside",
					query(random, labels(random) + "." + pick(random, "com", "local", "consul", "ballast.example"),
							random.nextInt(256)));
			case 8 ->
				new Packet("inside",
						query(random, labels(random) + "."
								+ pick(random, "service.ballast", "instance.ballast", "ballast", "_tcp.ballast"),
								random.nextInt(256)));
			case 10 -> new Packet("zone", withName(random, zoneName(random)));
			default -> {
				byte[] odd = good.clone();
				odd[2] = (byte) random.nextInt(256); // QR, opcode, AA, TC, RD
				odd[3] = (byte) random.nextInt(256); // RA, Z, RCODE
				ByteBuffer.wrap(odd).putShort(odd.length - 2, (short) random.nextInt(65_536)); // class
				yield new Packet("flags", odd);
			}
		};
	}

	private byte[] goodQuery(Random random) {
		return query(random,
				pick(random, service + ".service.ballast", "_" + service + "._tcp.ballast",
						"_" + service + "._tcp." + pick(random, "za", "zb", "ZA", "eu-1.a") + ".service.ballast"),
				random.nextBoolean() ? Type.SRV : Type.A);
	}

	/**
	 * A zone's name whose zone is one to four labels of any bytes (dots, NUL, spaces,
	 * bytes above 127 included), as raw bytes, terminator included.
	 */
	private byte[] zoneName(Random random) {
		ByteBuffer name = ByteBuffer.allocate(255);
		label(name, ("_" + service).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
		label(name, "_tcp".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
		for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
			byte[] zone = new byte[1 + random.nextInt(random.nextBoolean() ? 8 : 40)];
			for (int j = 0; j < zone.length; j++) {
				zone[j] = random.nextInt(4) == 0 ? (byte) random.nextInt(256)
						: (byte) "abcdefghijklmnopqrstuvwxyzABC0123456789.-_".charAt(random.nextInt(42));
			}
			label(name, zone);
		}
		label(name, "service".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
		label(name, "ballast".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
		name.put((byte) 0);
		return Arrays.copyOf(name.array(), name.position());
	}

	private static void label(ByteBuffer name, byte[] label) {
		name.put((byte) label.length).put(label);
	}

	private static byte[] query(Random random, String name, int type) {
		ByteBuffer packet = ByteBuffer.allocate(512);
		packet.putShort((short) random.nextInt(65_536)).putShort((short) 0x0100).putShort((short) 1);
		packet.putShort((short) 0).putShort((short) 0).putShort((short) 0);
		for (String label : name.split("\\.")) {
			byte[] bytes = label.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
			packet.put((byte) bytes.length).put(bytes);
		}
		packet.put((byte) 0).putShort((short) type).putShort((short) 1);
		return Arrays.copyOf(packet.array(), packet.position());
	}

	/** A question whose name is {@code name}'s raw bytes, terminator included. */
	private static byte[] withName(Random random, byte[] name) {
		ByteBuffer packet = ByteBuffer.allocate(12 + name.length + 4);
		packet.putShort((short) random.nextInt(65_536)).putShort((short) 0x0100).putShort((short) 1);
		packet.putShort((short) 0).putShort((short) 0).putShort((short) 0);
		packet.put(name).putShort((short) Type.A).putShort((short) 1);
		return packet.array();
	}

	private static byte[] pointerLoop(Random random) {
		ByteBuffer packet = ByteBuffer.allocate(24);
		packet.putShort((short) random.nextInt(65_536)).putShort((short) 0x0100).putShort((short) 1);
		packet.putShort((short) 0).putShort((short) 0).putShort((short) 0);
		if (random.nextBoolean()) {
			packet.put((byte) 0xC0).put((byte) 12); // points at itself
		}
		else {
			// a label, then a pointer back to the label: an endless name
			packet.put((byte) 1).put((byte) 'a').put((byte) 0xC0).put((byte) 12);
		}
		packet.putShort((short) Type.A).putShort((short) 1);
		return Arrays.copyOf(packet.array(), packet.position());
	}

	private static byte[] longName(Random random) {
		ByteBuffer name = ByteBuffer.allocate(400);
		for (int i = 0; i < 5; i++) {
			name.put((byte) 63);
			for (int j = 0; j < 63; j++) {
				name.put((byte) ('a' + random.nextInt(26)));
			}
		}
		name.put((byte) 7).put("ballast".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).put((byte) 0);
		return Arrays.copyOf(name.array(), name.position());
	}

	private static byte[] longLabel(Random random) {
		int length = 64 + random.nextInt(128); // 64..191: reserved label types or
												// oversize
		ByteBuffer name = ByteBuffer.allocate(1 + length + 9);
		name.put((byte) length);
		for (int i = 0; i < length && name.remaining() > 9; i++) {
			name.put((byte) ('a' + random.nextInt(26)));
		}
		name.put((byte) 7).put("ballast".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).put((byte) 0);
		return Arrays.copyOf(name.array(), name.position());
	}

	private static String labels(Random random) {
		StringBuilder name = new StringBuilder();
		for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
			if (i > 0) {
				name.append('.');
			}
			name.append(random.nextBoolean() ? "_" : "");
			for (int j = 0, m = 1 + random.nextInt(20); j < m; j++) {
				name.append("abcdefghijklmnopqrstuvwxyz0123456789-".charAt(random.nextInt(37)));
			}
		}
		return name.toString();
	}

	private static String pick(Random random, String... choices) {
		return choices[random.nextInt(choices.length)];
	}

	private static byte[] bytes(Random random, int length) {
		byte[] bytes = new byte[length];
		random.nextBytes(bytes);
		return bytes;
	}

}
