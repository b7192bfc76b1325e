package dev.ballast.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.ballast.client.EventStreamReader;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A test's view of a server-sent event stream, read by the client's own parser (through
 * {@link EventStreamReader}): events and comments are handed to the test in the order
 * they arrived.
 */
public final class EventStream implements AutoCloseable {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final HttpClient HTTP = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

	private final HttpResponse<InputStream> response;

	private final CompletableFuture<Void> reading;

	private EventStream(HttpResponse<InputStream> response) {
		this.response = response;
		// A thread of its own: the common pool has one thread on two cores, and a reader
		// blocks for the life of its stream.
		this.reading = CompletableFuture.runAsync(this::read,
				command -> Thread.ofPlatform().daemon().name("event-stream-reader").start(command));
	}

	/** Opens a stream with the admin token; {@code lastEventId} may be null. */
	public static EventStream open(int port, String path, String lastEventId) {
		return open(port, path, lastEventId, Admin.TOKEN);
	}

	/** Opens a stream with the given token; {@code lastEventId} may be null. */
	public static EventStream open(int port, String path, String lastEventId, String token) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.header("Accept", "text/event-stream")
			.header("Authorization", "Bearer " + token);
		if (lastEventId != null) {
			request.header("Last-Event-ID", lastEventId);
		}
		try {
			HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
			if (response.statusCode() != 200) {
				String body;
				try (InputStream stream = response.body()) {
					body = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
				}
				throw new AssertionError("watch answered " + response.statusCode() + ": " + body);
			}
			return new EventStream(response);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public HttpResponse<InputStream> response() {
		return response;
	}

	private void read() {
		try (InputStream body = response.body()) {
			EventStreamReader.read(body, new EventStreamReader.Receiver() {

				@Override
				public void event(String id, String type, String data) {
					events.add(new Event(id, type, data));
				}

				@Override
				public void comment(String text) {
					events.add(new Event(null, "comment", text.strip()));
				}

			});
		}
		catch (IOException ex) {
			// The stream was closed by the test or the server.
		}
		events.add(Event.END);
	}

	/** The next event or comment, failing if none comes within {@code timeout}. */
	public Event next(Duration timeout) {
		try {
			Event event = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (event == null) {
				throw new AssertionError("no event within " + timeout);
			}
			return event;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The next event, skipping keepalive comments. */
	public Event nextEvent(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			Event event = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
			if (!event.comment()) {
				return event;
			}
		}
	}

	/** The first event (not a comment) arriving within {@code quiet}, or null. */
	public Event eventWithin(Duration quiet) {
		long deadline = System.nanoTime() + quiet.toNanos();
		try {
			while (true) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return null;
				}
				Event event = events.poll(left, TimeUnit.NANOSECONDS);
				if (event != null && !event.comment()) {
					return event;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		try {
			response.body().close();
		}
		catch (IOException ex) {
			// Closing is all that was asked; the reader ends either way.
		}
		reading.cancel(true);
	}

	/**
	 * One event, a comment ({@code name} "comment"), or the end of the stream.
	 *
	 * @param id the stream's last event id ({@code ""} before any), or null for a comment
	 * @param name its type, {@code message} when the event named none
	 * @param data its data, or null for an event that only moves the id
	 */
	public record Event(String id, String name, String data) {

		static final Event END = new Event(null, "end", null);

		public boolean comment() {
			return "comment".equals(name);
		}

		public boolean end() {
			return this == END;
		}

		public JsonNode json() {
			return JSON.readTree(data);
		}

	}

}
