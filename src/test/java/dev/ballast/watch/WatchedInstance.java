package dev.ballast.watch;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.ballast.support.Api;
import dev.ballast.support.EventStream;
import dev.ballast.support.EventStream.Event;
import dev.ballast.support.Names;
import dev.ballast.support.Registration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Instance {@code a} of a service of the test's own, written through one node's API and
 * watched in a stream from the same node or another, past its snapshot: each write, the
 * event it brings, and how long each took.
 */
final class WatchedInstance implements AutoCloseable {

	/** The longest wait for an event that is due. */
	static final Duration SOON = Duration.ofSeconds(5);

	private final Api writer;

	private final String path;

	private final EventStream stream;

	private WatchedInstance(Api writer, String path, EventStream stream) {
		this.writer = writer;
		this.path = path;
		this.stream = stream;
	}

	/**
	 * Registers the instance through {@code writer} and opens a stream of its service on
	 * the node at {@code watchPort}, whose snapshot is read.
	 */
	static WatchedInstance open(Api writer, int watchPort, String servicePrefix) {
		String service = Names.service(servicePrefix);
		String path = "/v1/services/%s/instances/a".formatted(service);
		// Outlives the test, so that no lease expiry adds an event of its own.
		writer.put(path, Registration.at("h", 80).leaseTtlSeconds(300));
		EventStream stream = EventStream.open(watchPort, "/v1/services/%s/watch".formatted(service), null);
		assertThat(stream.nextEvent(SOON).name()).isEqualTo("snapshot");
		return new WatchedInstance(writer, path, stream);
	}

	/** Sets the weight with an operator's PATCH. */
	Delivery patchWeight(int weight) {
		return timed(() -> writer.patch(path, "{\"weight\":%d}".formatted(weight)));
	}

	/** Sets the weight with a registration, which goes through the group committer. */
	Delivery registerWeight(int weight) {
		return timed(() -> writer.put(path, Registration.at("h", 80).weight(weight).leaseTtlSeconds(300)));
	}

	private Delivery timed(Runnable write) {
		long sent = System.nanoTime();
		write.run();
		long acknowledged = System.nanoTime();
		Event event = stream.nextEvent(SOON);
		long received = System.nanoTime();
		return new Delivery(event, TimeUnit.NANOSECONDS.toMillis(acknowledged - sent),
				TimeUnit.NANOSECONDS.toMillis(received - acknowledged));
	}

	/**
	 * Waits between writes, so that each waits for its own delivery and not for one
	 * already on its way.
	 */
	static void pause(Duration duration) {
		try {
			Thread.sleep(duration);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		stream.close();
	}

	/**
	 * A write's event, the milliseconds until the write was acknowledged, and from then
	 * until its event was read (an event that came before the acknowledgement counts as
	 * read when the test got to it).
	 */
	record Delivery(Event event, long writeMillis, long eventMillis) {
	}

}
