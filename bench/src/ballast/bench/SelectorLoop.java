package ballast.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One selector thread and the watch streams it owns, for every watch benchmark: it
 * connects each stream, sends its request and feeds what arrives to the stream's parser
 * ({@link WatchStream#feed}) straight from one buffer, with no thread, line or string per
 * event. The generator runs on the same cores as the server, so what it spends per event
 * is spent in the figure: one read per readable stream, and the ready keys are handed
 * over by the selector itself ({@link Selector#select(java.util.function.Consumer, long)})
 * instead of through its selected-key set.
 */
final class SelectorLoop implements Runnable {

	/** Whose streams these are: told of each failure, and when the run is over. */
	interface Owner {

		boolean stopping();

		/**
		 * A stream failed: {@code kind} is one of open-failed, io-error, closed-by-server,
		 * protocol, or http-STATUS.
		 */
		void fail(WatchStream stream, String kind, String detail);

	}

	final Owner owner;

	final Selector selector;

	final ConcurrentLinkedQueue<WatchStream> incoming = new ConcurrentLinkedQueue<>();

	final ByteBuffer buffer = ByteBuffer.allocateDirect(256 * 1024);

	final byte[] bytes = new byte[256 * 1024];

	final Thread thread;

	SelectorLoop(Owner owner, int number) throws IOException {
		this.owner = owner;
		this.selector = Selector.open();
		this.thread = Thread.ofPlatform().name("watch-selector-" + number).daemon().unstarted(this);
	}

	/** Hands a stream whose connect was started to this thread. */
	void add(WatchStream stream) {
		incoming.add(stream);
		selector.wakeup();
	}

	/** Stops the thread (once the owner says it is stopping) and waits for it, bounded. */
	void join() throws InterruptedException {
		selector.wakeup();
		thread.join(5_000);
	}

	@Override
	public void run() {
		try {
			while (!owner.stopping()) {
				selector.select(this::ready, 100);
				for (WatchStream stream = incoming.poll(); stream != null; stream = incoming.poll()) {
					register(stream);
				}
			}
			// The run is over: the streams still open are closed without being marked
			// closed, as the report counts those the server or a problem ended.
			for (SelectionKey key : selector.keys()) {
				((WatchStream) key.attachment()).channel.close();
			}
			selector.close();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void ready(SelectionKey key) {
		WatchStream stream = (WatchStream) key.attachment();
		try {
			if (!key.isValid()) {
				return;
			}
			if (key.isReadable()) {
				read(key, stream);
			}
			else if (key.isConnectable()) {
				if (stream.channel.finishConnect()) {
					key.interestOps(SelectionKey.OP_WRITE);
					sendRequest(key, stream);
				}
			}
			else if (key.isWritable()) {
				sendRequest(key, stream);
			}
		}
		catch (IOException ex) {
			if (!owner.stopping()) {
				owner.fail(stream, stream.ready() ? "io-error" : "open-failed", ex.toString());
			}
			close(key, stream);
		}
	}

	private void register(WatchStream stream) {
		try {
			int interest = stream.channel.isConnected() ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT;
			stream.channel.register(selector, interest, stream);
		}
		catch (ClosedChannelException ex) {
			owner.fail(stream, "open-failed", ex.toString());
		}
	}

	private void sendRequest(SelectionKey key, WatchStream stream) throws IOException {
		stream.channel.write(stream.request);
		if (!stream.request.hasRemaining()) {
			stream.request = null;
			key.interestOps(SelectionKey.OP_READ);
		}
	}

	private void read(SelectionKey key, WatchStream stream) throws IOException {
		// Bounded, so one busy stream cannot starve the others on this thread.
		for (int rounds = 0; rounds < 4; rounds++) {
			buffer.clear();
			int n = stream.channel.read(buffer);
			if (n < 0) {
				if (!owner.stopping()) {
					owner.fail(stream, stream.ready() ? "closed-by-server" : "open-failed", stream.closedDetail());
				}
				close(key, stream);
				return;
			}
			if (n == 0) {
				return;
			}
			long now = System.nanoTime();
			buffer.flip();
			buffer.get(bytes, 0, n);
			String problem = stream.feed(bytes, n, now);
			if (problem != null) {
				// "HTTP 503": the node's watcher cap (ballast.watch.max-watchers) or a slow feed.
				owner.fail(stream, problem.startsWith("HTTP ") ? "http-" + problem.substring(5) : "protocol", problem);
				close(key, stream);
				return;
			}
			if (n < buffer.capacity()) {
				// The socket had no more: the next read would find nothing.
				return;
			}
		}
	}

	private static void close(SelectionKey key, WatchStream stream) {
		stream.closed = true;
		key.cancel();
		try {
			stream.channel.close();
		}
		catch (IOException ex) {
			// Closing is all that is left to do.
		}
	}

}
