package dev.ballast.watch;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.ballast.support.Admin;
import dev.ballast.support.Api;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;
import dev.ballast.support.RegistryTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an open stream costs the node's heap. A node is meant to hold 10,000 streams; the
 * container's request processor alone (its parsed request, request and response buffers)
 * is about 60 KiB, so a stream that kept it would cost a gigabyte at that size. Measured
 * in this JVM, the clients' sockets included (about 1 KiB each), after a full collection.
 */
@RegistryTest
class StreamMemoryTest {

	private static final int STREAMS = 400;

	private static final long BOUND = 20 * 1024;

	@LocalServerPort
	int port;

	@Test
	void anOpenStreamCostsAtMostTwentyKibibytesOfHeap() throws Exception {
		String service = Names.service("memory");
		Api.on(port)
			.put("/v1/services/%s/instances/a".formatted(service), Registration.at("h", 1).leaseTtlSeconds(300));
		byte[] request = ("GET /v1/services/" + service
				+ "/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: " + Admin.HEADER
				+ "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		// Warm: the first streams create what every later one shares.
		List<Socket> warm = open(request, 20);
		long least = Long.MAX_VALUE;
		// Other contexts in this JVM may keep what they allocate while the streams open,
		// which only ever adds to a measure: the least of a few is the streams' own.
		for (int attempt = 0; attempt < 3 && least > BOUND; attempt++) {
			long before = heapAfterFullGc();
			List<Socket> streams = open(request, STREAMS);
			long perStream = (heapAfterFullGc() - before) / STREAMS;
			close(streams);
			System.out.printf("heap per open stream: %,d bytes (%d streams)%n", perStream, STREAMS);
			least = Math.min(least, perStream);
		}
		close(warm);
		assertThat(least).as("bytes of heap per open stream").isPositive().isLessThanOrEqualTo(BOUND);
	}

	/** Opens streams and reads each one's headers and snapshot. */
	private List<Socket> open(byte[] request, int count) throws IOException {
		List<Socket> sockets = new ArrayList<>(count);
		byte[] buffer = new byte[4096];
		for (int i = 0; i < count; i++) {
			Socket socket = new Socket();
			sockets.add(socket);
			socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			socket.setSoTimeout(10_000);
			socket.getOutputStream().write(request);
			readSnapshot(socket.getInputStream(), buffer);
		}
		return sockets;
	}

	/** Reads until the end of the first event (after the headers' own blank line). */
	private static void readSnapshot(InputStream in, byte[] buffer) throws IOException {
		ByteArrayOutputStream read = new ByteArrayOutputStream();
		while (true) {
			String text = read.toString(StandardCharsets.UTF_8);
			int body = text.indexOf("\r\n\r\n");
			if (body >= 0 && text.indexOf("\n\n\r\n", body) > 0) {
				assertThat(text).startsWith("HTTP/1.1 200").contains("event: snapshot");
				return;
			}
			int n = in.read(buffer);
			if (n < 0) {
				throw new EOFException("stream ended before its snapshot: " + text);
			}
			read.write(buffer, 0, n);
		}
	}

	private static void close(List<Socket> sockets) throws IOException {
		for (Socket socket : sockets) {
			socket.close();
		}
	}

	private static long heapAfterFullGc() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(200);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

}
