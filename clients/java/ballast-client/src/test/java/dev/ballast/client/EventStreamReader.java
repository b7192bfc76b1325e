package dev.ballast.client;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * The client's {@link EventStreamParser}, opened to the end-to-end tests of other
 * packages, so that a test reads a registry's stream exactly as the client does. It lives
 * beside the tests rather than in the client, whose parser stays package-private.
 */
public final class EventStreamReader {

	/** Receives what the stream says, in order. */
	public interface Receiver {

		/**
		 * One event.
		 * @param id the stream's last event id, {@code ""} when none was ever set
		 * @param type the {@code event:} field, {@code message} when there was none
		 * @param data the joined {@code data:} lines, or null for a block with only an id
		 */
		void event(String id, String type, String data);

		/** One comment line, without its leading colon. */
		void comment(String text);

	}

	private final EventStreamParser parser;

	/** A reader of one stream from its start. */
	public EventStreamReader(Receiver receiver) {
		this.parser = new EventStreamParser("", new EventStreamParser.Listener() {

			@Override
			public void event(ServerSentEvent event) {
				receiver.event(event.id(), event.type(), event.data());
			}

			@Override
			public void retry(Duration delay) {
			}

			@Override
			public void comment(String text) {
				receiver.comment(text);
			}

		});
	}

	/** Reads {@code stream} until it ends, handing each event and comment over. */
	public static void read(InputStream stream, Receiver receiver) throws IOException {
		EventStreamReader reader = new EventStreamReader(receiver);
		byte[] buffer = new byte[8192];
		int read;
		while ((read = stream.read(buffer)) >= 0) {
			reader.accept(buffer, 0, read);
		}
	}

	/** Reads the next bytes of the stream, in chunks of any size. */
	public void accept(byte[] bytes, int offset, int length) {
		parser.accept(bytes, offset, length);
	}

}
