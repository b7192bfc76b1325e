package dev.ballast.watch;

import java.io.IOException;

import jakarta.servlet.http.WebConnection;
import org.apache.coyote.http11.upgrade.InternalHttpUpgradeHandler;
import org.apache.tomcat.util.net.AbstractEndpoint.Handler.SocketState;
import org.apache.tomcat.util.net.SSLSupport;
import org.apache.tomcat.util.net.SocketEvent;
import org.apache.tomcat.util.net.SocketWrapperBase;

/**
 * The connection of one open event stream once its response headers are sent: the
 * container's socket, written by the stream ({@link Watcher}) without any of the
 * per-request machinery in between.
 *
 * <p>
 * An event stream is a response that lives for hours, and for as long as a request is
 * open Tomcat keeps its whole request processor: the parsed request, the request's 24 KiB
 * of input buffers (fixed sizes), the response's buffers and the header buffers, some 60
 * KiB per stream. {@link WatchController} therefore hands the connection over with the
 * Servlet API's {@code HttpServletRequest#upgrade} once the stream is open: the container
 * sends the {@code 200} response's headers as the controller set them (it uses no
 * transfer coding of its own, as the response says {@code Connection: close}), puts the
 * request processor back in its pool for the next request, and leaves the socket to this
 * handler. The stream then writes its frames, already framed as the chunks of a chunked
 * body ({@link EventFrame}), to the socket's write buffer, and closes the connection when
 * it ends: the client sees the same bytes as from a chunked response. Tomcat's
 * {@link InternalHttpUpgradeHandler} (the interface of its own WebSocket and HTTP/2
 * handlers) gives the socket without the servlet streams' bookkeeping and lets the stream
 * close it; {@code WatchWireTest} fails if a Tomcat release changes what goes on the
 * wire.
 *
 * <p>
 * Public with a public constructor because the container creates it from its class.
 */
public final class StreamConnection implements InternalHttpUpgradeHandler {

	private volatile SocketWrapperBase<?> socket;

	private volatile Watcher watcher;

	private volatile boolean chunked;

	/** Created by the container in {@code upgrade}; {@link #attach} follows at once. */
	public StreamConnection() {
	}

	/**
	 * The stream this connection carries, and whether its body is chunked (HTTP/1.1) or
	 * ends with the connection (HTTP/1.0).
	 */
	void attach(Watcher watcher, boolean chunked) {
		this.chunked = chunked;
		this.watcher = watcher;
	}

	@Override
	public void setSocketWrapper(SocketWrapperBase<?> wrapper) {
		this.socket = wrapper;
	}

	/** The response's headers are sent: the stream may write. */
	@Override
	public void init(WebConnection connection) {
		watcher.start(this);
	}

	/**
	 * The container's notices. The client sends nothing after its request, so something
	 * to read means it closed the connection (or broke the protocol): the stream ends at
	 * once, instead of at its next write.
	 */
	@Override
	public SocketState upgradeDispatch(SocketEvent event) {
		switch (event) {
			case OPEN_WRITE -> watcher.writable();
			case OPEN_READ -> {
				if (!readNothing()) {
					watcher.close();
				}
			}
			case TIMEOUT -> {
				// Timeouts are the stream's own (max age, stalls); the connection has
				// none.
			}
			default -> watcher.close();
		}
		// A stream that is ending but still writing its last frame stays open.
		return watcher.ended() ? SocketState.CLOSED : SocketState.UPGRADED;
	}

	/** True if the client has sent nothing and is still connected. */
	private boolean readNothing() {
		try {
			return socket.read(false, new byte[64], 0, 64) == 0;
		}
		catch (IOException ex) {
			// End of stream or a reset: the client is gone.
			return false;
		}
	}

	/** Whether the socket takes a write without buffering beyond its own buffer. */
	boolean canWrite() {
		return socket.canWrite();
	}

	/** Adds a frame to the socket's buffer, sending what fills it; never waits. */
	void write(EventFrame frame) throws IOException {
		if (chunked) {
			socket.write(false, frame.chunk(), 0, frame.chunk().length);
		}
		else {
			socket.write(false, frame.chunk(), frame.offset(), frame.length());
		}
	}

	/** Sends what is buffered without waiting; true if some is left. */
	boolean flush() throws IOException {
		return socket.flush(false);
	}

	/** Has the container call {@link Watcher#writable} once the socket takes more. */
	void awaitWritable() {
		socket.registerWriteInterest();
	}

	/** Closes the connection; what was flushed still reaches the client. */
	void close() {
		socket.close();
	}

	/** After the container closed the connection: the stream is over. */
	@Override
	public void destroy() {
		Watcher stream = watcher;
		if (stream != null) {
			stream.close();
		}
	}

	@Override
	public void timeoutAsync(long now) {
		// The stream keeps its own time (StreamUpkeep).
	}

	@Override
	public void setSslSupport(SSLSupport sslSupport) {
		// Nothing in a stream depends on the client's certificate.
	}

	@Override
	public void pause() {
		// Streams end on the application's stop (Streams#stop), before the connector's.
	}

}
