package dev.ballast.dns;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;
import org.xbill.DNS.DClass;

/**
 * Queries the responder through its real sockets, every wait bounded: what the tests send
 * and read, without a resolver library's retries or caches in between.
 */
record DnsClient(int port) {

	static final int TIMEOUT_MILLIS = 3000;

	static Message query(String name, int type, Integer ednsPayload) {
		try {
			Message query = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
			if (ednsPayload != null) {
				query.addRecord(new OPTRecord(ednsPayload, 0, 0), Section.ADDITIONAL);
			}
			return query;
		}
		catch (TextParseException ex) {
			throw new IllegalArgumentException(ex);
		}
	}

	Message udp(String name, int type) {
		return udp(query(name, type, 4096));
	}

	Message udp(Message query) {
		return answering(query, parse(udp(query.toWire()).orElseThrow()));
	}

	/** The raw answer to a raw packet, or empty when none came within the timeout. */
	Optional<byte[]> udp(byte[] packet) {
		try (DatagramSocket socket = new DatagramSocket()) {
			socket.setSoTimeout(TIMEOUT_MILLIS);
			socket.send(new DatagramPacket(packet, packet.length,
					new InetSocketAddress(InetAddress.getLoopbackAddress(), port)));
			byte[] buffer = new byte[65_535];
			DatagramPacket answer = new DatagramPacket(buffer, buffer.length);
			socket.receive(answer);
			return Optional.of(Arrays.copyOf(buffer, answer.getLength()));
		}
		catch (java.net.SocketTimeoutException ex) {
			return Optional.empty();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	Message tcp(Message query) {
		return answering(query, parse(tcp(query.toWire()).orElseThrow()));
	}

	/** The answer, once checked to be one to {@code query}: its id and its question. */
	private static Message answering(Message query, Message answer) {
		if (answer.getHeader().getID() != query.getHeader().getID()
				|| !query.getQuestion().getName().toString().equals(answer.getQuestion().getName().toString())) {
			throw new AssertionError("answer %s does not answer query %s".formatted(answer, query));
		}
		return answer;
	}

	/**
	 * The raw answer to a raw framed packet; empty when the server closed without one.
	 */
	Optional<byte[]> tcp(byte[] packet) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MILLIS);
			socket.setSoTimeout(TIMEOUT_MILLIS);
			DataOutputStream out = new DataOutputStream(socket.getOutputStream());
			out.writeShort(packet.length);
			out.write(packet);
			out.flush();
			DataInputStream in = new DataInputStream(socket.getInputStream());
			int length = in.readUnsignedShort();
			byte[] answer = new byte[length];
			in.readFully(answer);
			return Optional.of(answer);
		}
		catch (java.io.EOFException ex) {
			return Optional.empty();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Message parse(byte[] wire) {
		try {
			return new Message(wire);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static List<Record> answers(Message message) {
		return message.getSection(Section.ANSWER);
	}

	static List<Record> additional(Message message) {
		return message.getSection(Section.ADDITIONAL).stream().filter(r -> r.getType() != Type.OPT).toList();
	}

}
