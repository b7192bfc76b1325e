package dev.ballast.client;

/**
 * One event read from a {@code text/event-stream}.
 *
 * @param id the stream's last event id when the event ended, {@code ""} when none was
 * ever set
 * @param type the {@code event:} field, {@code message} when there was none
 * @param data the {@code data:} lines joined with {@code \n}, or {@code null} for a block
 * that only set an id
 */
record ServerSentEvent(String id, String type, String data) {

	/** The type of an event without an {@code event:} field. */
	static final String MESSAGE = "message";

	/** Whether the event carries data, rather than only moving the stream's position. */
	boolean hasData() {
		return data != null;
	}

}
