package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EventStreamParserTest {

	@Test
	void readsTypeIdAndData() {
		assertThat(RecordingListener.parse("event: upsert\nid: 43\ndata: {\"id\":\"a\"}\n\n").events)
			.containsExactly(new ServerSentEvent("43", "upsert", "{\"id\":\"a\"}"));
	}

	@Test
	void joinsDataLinesWithLineFeeds() {
		assertThat(RecordingListener.parse("data: {\ndata:   \"a\": 1\ndata: }\n\n").events)
			.containsExactly(new ServerSentEvent("", "message", "{\n  \"a\": 1\n}"));
	}

	@Test
	void removesOnlyOneSpaceAfterTheColon() {
		assertThat(RecordingListener.parse("data:x\n\ndata:  y\n\n").events).extracting(ServerSentEvent::data)
			.containsExactly("x", " y");
	}

	@Test
	void skipsComments() {
		assertThat(RecordingListener.parse(": keepalive\n\n:\nevent: upsert\n: inside an event\ndata: 1\n\n").events)
			.containsExactly(new ServerSentEvent("", "upsert", "1"));
	}

	@Test
	void reportsCommentsWithoutTheirColon() {
		assertThat(RecordingListener.parse(": keepalive\n\n:\nevent: upsert\n: inside an event\ndata: 1\n\n").comments)
			.containsExactly(" keepalive", "", " inside an event");
	}

	@Test
	void endsLinesAtCrLfAtLfAndAtCr() {
		String stream = "event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\revent: c\ndata: 3\n\n";

		assertThat(RecordingListener.parse(stream).events).extracting(ServerSentEvent::type, ServerSentEvent::data)
			.containsExactly(tuple("a", "1"), tuple("b", "2"), tuple("c", "3"));
	}

	@Test
	void anIdWithoutDataMovesThePositionAsAnEventWithoutData() {
		RecordingListener listener = RecordingListener.parse("id: 44\ndata: x\n\nid: 45\n\n");

		assertThat(listener.events).containsExactly(new ServerSentEvent("44", "message", "x"),
				new ServerSentEvent("45", "message", null));
		assertThat(listener.events.get(1).hasData()).isFalse();
	}

	@Test
	void aBlockWithoutIdOrDataHandsOverNothing() {
		assertThat(RecordingListener.parse("event: upsert\n\n\n\n").events).isEmpty();
	}

	@Test
	void anEmptyDataLineIsDataAndDispatches() {
		assertThat(RecordingListener.parse("data\n\ndata:\n\n").events).extracting(ServerSentEvent::data)
			.containsExactly("", "");
	}

	@Test
	void theIdCarriesOverToLaterEventsUntilReplaced() {
		assertThat(RecordingListener.parse("id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\n").events)
			.extracting(ServerSentEvent::id)
			.containsExactly("7", "7", "8");
	}

	@Test
	void continuesFromTheIdOfThePreviousConnection() {
		RecordingListener listener = new RecordingListener();
		EventStreamParser parser = new EventStreamParser("a:42,b:17", listener);
		byte[] bytes = "data: x\n\n".getBytes(StandardCharsets.UTF_8);

		parser.accept(bytes, 0, bytes.length);

		assertThat(listener.events).extracting(ServerSentEvent::id).containsExactly("a:42,b:17");
	}

	@Test
	void anIdInAnEventCutOffBeforeItsEndIsNotTheLastEventId() {
		RecordingListener listener = new RecordingListener();
		EventStreamParser parser = new EventStreamParser("42", listener);
		byte[] bytes = "id: 43\ndata: x\n\nid: 44\ndata: y\n".getBytes(StandardCharsets.UTF_8);

		parser.accept(bytes, 0, bytes.length);

		assertThat(parser.lastEventId()).isEqualTo("43");
		assertThat(listener.events).extracting(ServerSentEvent::data).containsExactly("x");
	}

	@Test
	void ignoresAnIdContainingNul() {
		assertThat(RecordingListener.parse("id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n").events)
			.extracting(ServerSentEvent::id)
			.containsExactly("1", "1");
	}

	@Test
	void reportsRetryInMilliseconds() {
		assertThat(RecordingListener.parse("retry: 2500\n\n").retries).containsExactly(Duration.ofMillis(2500));
	}

	@Test
	void ignoresRetryThatIsNotAllDigits() {
		assertThat(RecordingListener
			.parse("retry: 2.5\nretry: -1\nretry:\nretry: 1s\nretry: 99999999999999999999\n\n").retries).isEmpty();
	}

	@Test
	void ignoresUnknownFieldsAndALineWithoutColonNamesAField() {
		assertThat(RecordingListener.parse("colour: blue\nevent\ndata: x\n\n").events)
			.containsExactly(new ServerSentEvent("", "message", "x"));
	}

	@Test
	void skipsALeadingByteOrderMark() {
		assertThat(RecordingListener.parse("\uFEFFevent: upsert\ndata: x\n\n").events)
			.containsExactly(new ServerSentEvent("", "upsert", "x"));
	}

	@Test
	void replacesInvalidUtf8() {
		RecordingListener listener = new RecordingListener();
		byte[] bytes = { 'd', 'a', 't', 'a', ':', (byte) 0xFF, '\n', '\n' };

		new EventStreamParser("", listener).accept(bytes, 0, bytes.length);

		assertThat(listener.events).extracting(ServerSentEvent::data).containsExactly("\uFFFD");
	}

	@Test
	void keepsACharacterSplitAcrossChunks() {
		RecordingListener listener = new RecordingListener();
		EventStreamParser parser = new EventStreamParser("", listener);
		byte[] bytes = "data: zürich\n\n".getBytes(StandardCharsets.UTF_8);
		int insideTheUmlaut = "data: z".length() + 1;

		parser.accept(bytes, 0, insideTheUmlaut);
		parser.accept(bytes, insideTheUmlaut, bytes.length - insideTheUmlaut);

		assertThat(listener.events).extracting(ServerSentEvent::data).containsExactly("zürich");
	}

	@Test
	void anUnfinishedEventIsNotHandedOver() {
		assertThat(RecordingListener.parse("event: upsert\ndata: x\n").events).isEmpty();
	}

}
