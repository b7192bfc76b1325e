package dev.ballast.watch;

import org.apache.coyote.http11.Http11NioProtocol;

/**
 * Tomcat's NIO HTTP/1.1 protocol with smaller response buffers. Each request processor
 * keeps a response byte buffer of 8 KiB and a character buffer of 8,192 characters (16
 * KiB) for its whole life; Tomcat sizes both from {@link #getDesiredBufferSize()}. An
 * open stream no longer holds a processor ({@link StreamConnection}), but a node that has
 * just opened thousands of streams keeps up to {@code server.tomcat.processor-cache}
 * (200) processors for the next requests, and these hold 18 KiB less each at
 * {@link StreamBuffers#SOCKET_BUFFER}, the size of the socket's write buffer, which a
 * larger body passes through in as many writes anyway. Named in
 * {@link StreamBuffers#useStreamProtocol}, since Tomcat creates it from its class name.
 */
public class StreamProtocol extends Http11NioProtocol {

	@Override
	public int getDesiredBufferSize() {
		return StreamBuffers.SOCKET_BUFFER;
	}

}
