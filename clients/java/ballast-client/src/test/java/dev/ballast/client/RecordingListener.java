package dev.ballast.client;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Records what an {@link EventStreamParser} hands over, in order. */
final class RecordingListener implements EventStreamParser.Listener {

	final List<ServerSentEvent> events = new ArrayList<>();

	final List<Duration> retries = new ArrayList<>();

	final List<String> comments = new ArrayList<>();

	@Override
	public void event(ServerSentEvent event) {
		events.add(event);
	}

	@Override
	public void retry(Duration delay) {
		retries.add(delay);
	}

	@Override
	public void comment(String text) {
		comments.add(text);
	}

	/** Parses {@code text} as one chunk from a fresh stream without a previous id. */
	static RecordingListener parse(String text) {
		RecordingListener listener = new RecordingListener();
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		new EventStreamParser("", listener).accept(bytes, 0, bytes.length);
		return listener;
	}

}
