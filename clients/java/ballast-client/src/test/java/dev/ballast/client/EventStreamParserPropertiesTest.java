package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import static dev.ballast.client.Properties.charsOf;
import static dev.ballast.client.Properties.qt;
import static dev.ballast.client.Properties.withEdges;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

class EventStreamParserPropertiesTest {

	@Test
	void chunkBoundariesDoNotChangeWhatIsRead() {
		Gen<Set<Integer>> cuts = lists().of(withEdges(integers().between(0, 2000), 0, 1, 2000))
			.ofSizeBetween(0, 30)
			.map((list) -> (Set<Integer>) new TreeSet<>(list));
		qt(2000).forAll(streams(), cuts).checkAssert((stream, cutsAt) -> {
			RecordingListener whole = read(stream, Set.of());
			RecordingListener chunked = read(stream, cutsAt);

			assertThat(chunked.events).isEqualTo(whole.events);
			assertThat(chunked.retries).isEqualTo(whole.retries);
		});
	}

	@Test
	void byteAtATimeReadsTheSameAsOneChunk() {
		qt(500).forAll(streams()).checkAssert((stream) -> {
			Set<Integer> everyByte = new TreeSet<>();
			for (int i = 1; i < stream.length; i++) {
				everyByte.add(i);
			}

			assertThat(read(stream, everyByte).events).isEqualTo(read(stream, Set.of()).events);
		});
	}

	private static RecordingListener read(byte[] stream, Set<Integer> cuts) {
		RecordingListener listener = new RecordingListener();
		EventStreamParser parser = new EventStreamParser("", listener);
		int start = 0;
		for (int cut : new TreeSet<>(cuts)) {
			if (cut > start && cut < stream.length) {
				parser.accept(stream, start, cut - start);
				start = cut;
			}
		}
		parser.accept(stream, start, stream.length - start);
		return listener;
	}

	private static Gen<byte[]> streams() {
		return lists().of(lines()).ofSizeBetween(0, 40).map((lines) -> {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			lines.forEach((line) -> out.writeBytes(line.getBytes(StandardCharsets.UTF_8)));
			return out.toByteArray();
		}).describedAs((bytes) -> '"' + new String(bytes, StandardCharsets.UTF_8) + '"');
	}

	private static Gen<String> lines() {
		// Four UTF-8 bytes, so that cuts also fall inside the longest characters.
		Gen<String> value = charsOf("az09:, {}\"\u00fc\u20ac\u0000x", 0, 12).map((text) -> text.replace("x", "😀"));
		Gen<String> field = Generate.pick(List.of("event", "data", "id", "retry", "", "colour"));
		Gen<String> content = Generate
			.frequency(List.of(Pair.of(6, field.zip(value, (name, text) -> name + ": " + text)),
					Pair.of(1, withEdges(integers().between(0, 5000), 0, 5000).map((ms) -> "retry: " + ms)),
					Pair.of(1, value.map((text) -> "data:" + text)), Pair.of(3, Generate.constant(""))));
		Gen<String> end = Generate.pick(List.of("\n", "\r\n", "\r"));
		return content.zip(end, (text, lineEnd) -> text + lineEnd);
	}

}
