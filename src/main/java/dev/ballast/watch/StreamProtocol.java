package dev.ballast.watch;

import org.apache.coyote.http11.Http11NioProtocol;

/**
 * Tomcat's NIO HTTP/1.1 protocol with smaller response buffers. Each response keeps a
 * byte buffer of 8 KiB and a character buffer of 8,192 characters (16 KiB) for its whole
 * life, and an open event stream is a response that lives for hours: at 10,000 streams
 * that is 240 MiB. Tomcat sizes both from {@link #getDesiredBufferSize()}; at
 * {@link StreamBuffers#SOCKET_BUFFER} they match the socket's write buffer, which a
 * larger body passes through in as many writes anyway. Named in
 * {@link StreamBuffers#useStreamProtocol}, since Tomcat creates it from its class name.
 */
public class StreamProtocol extends Http11NioProtocol {

	@Override
	public int getDesiredBufferSize() {
		return StreamBuffers.SOCKET_BUFFER;
	}

}
