package dev.ballast.probe;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import dev.ballast.registry.CheckDefinition;
import dev.ballast.registry.CheckStatus;
import dev.ballast.registry.Port;

/**
 * {@code grpc.health.v1.Health/Check} over plaintext HTTP/2 (prior knowledge), written
 * out by hand: one unary call needs the connection preface, a HEADERS frame and a DATA
 * frame, and its answer is the first byte pair of the response message, so the probe
 * needs no HPACK decoder and Ballast no gRPC library. SERVING is passing; NOT_SERVING,
 * SERVICE_UNKNOWN, an error status (trailers without a message), a reset or no answer
 * within the timeout are critical. The {@link Deadline} closes the connection when the
 * timeout passes, however slowly a frame comes in.
 */
final class GrpcProbe implements Probe {

	private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

	private static final int DATA = 0;

	private static final int HEADERS = 1;

	private static final int RST_STREAM = 3;

	private static final int SETTINGS = 4;

	private static final int PING = 6;

	private static final int GOAWAY = 7;

	private static final int END_STREAM = 0x1;

	private static final int END_HEADERS = 0x4;

	private static final int ACK = 0x1;

	/** Far above a health answer (a few bytes); a bigger frame is not a health answer. */
	private static final int MAX_FRAME = 16_384;

	private final Dialer dialer;

	GrpcProbe(Dialer dialer) {
		this.dialer = dialer;
	}

	@Override
	public ProbeOutcome run(CheckDefinition check, Port instancePort, Deadline deadline) {
		String what = "gRPC check " + check.target() + (check.grpcService().isEmpty() ? "" : "/" + check.grpcService());
		try (Socket socket = dialer.connect(check, instancePort, deadline)) {
			OutputStream out = socket.getOutputStream();
			out.write(PREFACE);
			frame(out, SETTINGS, 0, 0, new byte[0]);
			frame(out, HEADERS, END_HEADERS, 1, headers(check));
			frame(out, DATA, END_STREAM, 1, message(check.grpcService()));
			out.flush();
			return answer(new DataInputStream(socket.getInputStream()), out, what);
		}
		catch (IOException | IllegalArgumentException ex) {
			return Probe.failed(what, deadline, ex);
		}
	}

	private static ProbeOutcome answer(DataInputStream in, OutputStream out, String what) throws IOException {
		ByteArrayOutputStream message = new ByteArrayOutputStream();
		while (true) {
			int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
			int type = in.readUnsignedByte();
			int flags = in.readUnsignedByte();
			int stream = in.readInt() & 0x7fffffff;
			if (length > MAX_FRAME) {
				return ProbeOutcome.critical(what + ": not a gRPC health answer (a frame of " + length + " bytes)");
			}
			byte[] payload = in.readNBytes(length);
			if (type == SETTINGS && (flags & ACK) == 0) {
				frame(out, SETTINGS, ACK, 0, new byte[0]);
				out.flush();
			}
			else if (type == PING && (flags & ACK) == 0) {
				frame(out, PING, ACK, 0, payload);
				out.flush();
			}
			else if (type == GOAWAY || (type == RST_STREAM && stream == 1)) {
				return ProbeOutcome.critical(what + ": the server ended the call");
			}
			else if (type == DATA && stream == 1) {
				message.write(payload, 0, payload.length);
				ProbeOutcome outcome = served(message.toByteArray(), what);
				if (outcome != null) {
					return outcome;
				}
			}
			else if (type == HEADERS && stream == 1 && (flags & END_STREAM) != 0) {
				return ProbeOutcome.critical(what + ": the call ended without an answer (an error status, such as "
						+ "NOT_FOUND for a service the server does not know)");
			}
		}
	}

	/** The status in a complete response message, or null while it is incomplete. */
	private static ProbeOutcome served(byte[] message, String what) {
		if (message.length < 5) {
			return null;
		}
		int length = ((message[1] & 0xff) << 24) | ((message[2] & 0xff) << 16) | ((message[3] & 0xff) << 8)
				| (message[4] & 0xff);
		if (message.length < 5 + length) {
			return null;
		}
		// HealthCheckResponse: field 1 (status), a varint: 08 nn. An empty message is
		// UNKNOWN (0), the proto default.
		int status = length >= 2 && message[5] == 0x08 ? message[6] & 0x7f : 0;
		String name = switch (status) {
			case 1 -> "SERVING";
			case 2 -> "NOT_SERVING";
			case 3 -> "SERVICE_UNKNOWN";
			default -> "UNKNOWN";
		};
		return new ProbeOutcome(status == 1 ? CheckStatus.PASSING : CheckStatus.CRITICAL, what + ": " + name);
	}

	private static byte[] headers(CheckDefinition check) {
		ByteArrayOutputStream block = new ByteArrayOutputStream();
		literal(block, ":method", "POST");
		literal(block, ":scheme", "http");
		literal(block, ":path", "/grpc.health.v1.Health/Check");
		literal(block, ":authority", check.target());
		literal(block, "content-type", "application/grpc");
		literal(block, "te", "trailers");
		literal(block, "user-agent", "ballast-health-check");
		return block.toByteArray();
	}

	/** An HPACK literal header field without indexing, new name, no Huffman coding. */
	private static void literal(ByteArrayOutputStream block, String name, String value) {
		block.write(0x00);
		string(block, name.getBytes(StandardCharsets.US_ASCII));
		string(block, value.getBytes(StandardCharsets.US_ASCII));
	}

	/** An HPACK string: its length as a 7-bit prefixed integer, then its bytes. */
	private static void string(ByteArrayOutputStream block, byte[] bytes) {
		int length = bytes.length;
		if (length < 127) {
			block.write(length);
		}
		else {
			block.write(127);
			length -= 127;
			while (length >= 128) {
				block.write((length & 0x7f) | 0x80);
				length >>>= 7;
			}
			block.write(length);
		}
		block.write(bytes, 0, bytes.length);
	}

	/** A HealthCheckRequest with its service, in gRPC's length-prefixed framing. */
	private static byte[] message(String service) {
		byte[] name = service.getBytes(StandardCharsets.UTF_8);
		ByteArrayOutputStream proto = new ByteArrayOutputStream();
		if (name.length > 0) {
			proto.write(0x0a);
			int length = name.length;
			while (length >= 128) {
				proto.write((length & 0x7f) | 0x80);
				length >>>= 7;
			}
			proto.write(length);
			proto.write(name, 0, name.length);
		}
		byte[] body = proto.toByteArray();
		ByteArrayOutputStream framed = new ByteArrayOutputStream();
		framed.write(0);
		framed.write(body.length >>> 24);
		framed.write(body.length >>> 16);
		framed.write(body.length >>> 8);
		framed.write(body.length);
		framed.write(body, 0, body.length);
		return framed.toByteArray();
	}

	private static void frame(OutputStream out, int type, int flags, int stream, byte[] payload) throws IOException {
		byte[] header = { (byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
				(byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
				(byte) stream };
		out.write(header);
		out.write(payload);
	}

}
