package dev.ballast.client;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server side of the watch contract, scripted per connection: each watch request is
 * answered by the next queued {@link Script}, or, when none is left, by a stream that
 * sends only keepalives. Acknowledgements are recorded and answered 204. Every request is
 * recorded with the time it arrived.
 */
final class FakeRegistry implements AutoCloseable {

	/** How one watch request is answered. */
	interface Script {

		void answer(HttpExchange exchange, FakeRegistry registry) throws IOException, InterruptedException;

	}

	record Request(String method, String target, Headers headers, String body, long atNanos) {

		/** The first value of a header, or null; names are matched ignoring case. */
		String header(String name) {
			return headers.getFirst(name);
		}

	}

	private static final Duration KEEPALIVE_INTERVAL = Duration.ofMillis(100);

	final List<Request> watches = new CopyOnWriteArrayList<>();

	final List<Request> acks = new CopyOnWriteArrayList<>();

	private final BlockingQueue<Script> scripts = new LinkedBlockingQueue<>();

	private final AtomicInteger openStreams = new AtomicInteger();

	private final CountDownLatch closing = new CountDownLatch(1);

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final HttpServer server;

	private FakeRegistry(HttpServer server) {
		this.server = server;
		server.setExecutor(threads);
		server.createContext("/", this::handle);
		server.start();
	}

	static FakeRegistry start() {
		try {
			return new FakeRegistry(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	URI base() {
		return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
	}

	/** Queues the answer to the next watch request not yet answered. */
	FakeRegistry then(Script script) {
		scripts.add(script);
		return this;
	}

	int openStreams() {
		return openStreams.get();
	}

	Request watch(int index) {
		return watches.get(index);
	}

	/** Sends {@code text}, then keepalives until the client or the registry goes away. */
	static Script stream(String text) {
		return (exchange, registry) -> {
			OutputStream out = registry.open(exchange);
			write(out, text);
			registry.keepalivesUntilClosed(out);
		};
	}

	/**
	 * Sends {@code text} and ends the response, as the registry does after a reconnect.
	 */
	static Script streamThenClose(String text) {
		return (exchange, registry) -> write(registry.open(exchange), text);
	}

	/** Sends {@code text}, then nothing at all, like a connection that died unnoticed. */
	static Script streamThenSilence(String text) {
		return (exchange, registry) -> {
			write(registry.open(exchange), text);
			registry.closing.await();
		};
	}

	/**
	 * Sends {@code first}, keepalives for {@code gap}, then {@code second}, then
	 * keepalives.
	 */
	static Script streamWithGap(String first, Duration gap, String second) {
		return (exchange, registry) -> {
			OutputStream out = registry.open(exchange);
			write(out, first);
			long end = System.nanoTime() + gap.toNanos();
			while (System.nanoTime() < end
					&& !registry.closing.await(KEEPALIVE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)) {
				write(out, ": keepalive\n\n");
			}
			write(out, second);
			registry.keepalivesUntilClosed(out);
		};
	}

	static Script status(int status, Map<String, String> headers) {
		return (exchange, registry) -> {
			headers.forEach(exchange.getResponseHeaders()::set);
			exchange.sendResponseHeaders(status, -1);
		};
	}

	@Override
	public void close() {
		closing.countDown();
		server.stop(0);
		threads.shutdownNow();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
			Headers headers = new Headers();
			headers.putAll(exchange.getRequestHeaders());
			Request request = new Request(exchange.getRequestMethod(), exchange.getRequestURI().toString(), headers,
					body, System.nanoTime());
			if (request.method().equals("POST") && request.target().endsWith("/ack")) {
				acks.add(request);
				exchange.sendResponseHeaders(204, -1);
				return;
			}
			watches.add(request);
			Script script = scripts.poll();
			(script != null ? script : stream("")).answer(exchange, this);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private OutputStream open(HttpExchange exchange) throws IOException {
		exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
		exchange.sendResponseHeaders(200, 0);
		return exchange.getResponseBody();
	}

	private void keepalivesUntilClosed(OutputStream out) throws InterruptedException {
		openStreams.incrementAndGet();
		try {
			while (!closing.await(KEEPALIVE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)) {
				write(out, ": keepalive\n\n");
			}
		}
		catch (IOException ex) {
			// The client closed the stream: what the watch does on a reconnect or a
			// close.
		}
		finally {
			openStreams.decrementAndGet();
		}
	}

	private static void write(OutputStream out, String text) throws IOException {
		out.write(text.getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

}
