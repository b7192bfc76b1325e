package dev.ballast.watch;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EventFrameTest {

	@Test
	void writesIdEventAndDataLinesEndedByABlankLine() {
		assertThat(text(EventFrame.of("42", "upsert", "{\"a\":1}")))
			.isEqualTo("id: 42\nevent: upsert\ndata: {\"a\":1}\n\n");
	}

	@Test
	void anIdOnlyFrameHasNoEventOrData() {
		assertThat(text(EventFrame.of("43", null, null))).isEqualTo("id: 43\n\n");
	}

	@Test
	void dataWithLineBreaksBecomesSeveralDataLines() {
		assertThat(text(EventFrame.of(null, null, "a\nb\r\nc"))).isEqualTo("data: a\ndata: b\ndata: c\n\n");
	}

	@Test
	void aReconnectFrameSaysWhyAndWhenToComeBack() {
		assertThat(text(EventFrame.reconnect("max-age", 700)))
			.isEqualTo("retry: 700\nevent: reconnect\ndata: {\"reason\":\"max-age\"}\n\n");
	}

	@Test
	void aFrameIsAChunkOfAChunkedBodyAroundTheEvent() {
		EventFrame frame = EventFrame.of("7", "remove", "{\"id\":\"é\"}");

		String event = "id: 7\nevent: remove\ndata: {\"id\":\"é\"}\n\n";
		int bytes = event.getBytes(StandardCharsets.UTF_8).length;
		assertThat(new String(frame.chunk(), StandardCharsets.UTF_8))
			.isEqualTo(Integer.toHexString(bytes) + "\r\n" + event + "\r\n");
		assertThat(frame.length()).isEqualTo(bytes);
		assertThat(frame.text()).isEqualTo(event);
	}

	@Test
	void theEndIsTheLastChunkAndNothingWithoutChunks() {
		assertThat(new String(EventFrame.END.chunk(), StandardCharsets.US_ASCII)).isEqualTo("0\r\n\r\n");
		assertThat(EventFrame.END.length()).isZero();
	}

	private static String text(EventFrame frame) {
		return frame.text();
	}

}
