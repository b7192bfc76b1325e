package dev.ballast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

class EventStreamParserPropertiesTest {

	@Property(tries = 2000)
	void chunkBoundariesDoNotChangeWhatIsRead(@ForAll("streams") byte[] stream,
			@ForAll @Size(max = 30) Set<@IntRange(min = 0, max = 2000) Integer> cuts) {
		RecordingListener whole = read(stream, Set.of());
		RecordingListener chunked = read(stream, cuts);
		Statistics.label("events").collect(whole.events.isEmpty() ? "none" : "some");

		assertThat(chunked.events).isEqualTo(whole.events);
		assertThat(chunked.retries).isEqualTo(whole.retries);
	}

	@Property(tries = 500)
	void byteAtATimeReadsTheSameAsOneChunk(@ForAll("streams") byte[] stream) {
		Set<Integer> everyByte = new TreeSet<>();
		for (int i = 1; i < stream.length; i++) {
			everyByte.add(i);
		}

		assertThat(read(stream, everyByte).events).isEqualTo(read(stream, Set.of()).events);
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

	@Provide
	Arbitrary<byte[]> streams() {
		return lines().list().ofMaxSize(40).map((lines) -> {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			lines.forEach((line) -> out.writeBytes(line.getBytes(StandardCharsets.UTF_8)));
			return out.toByteArray();
		});
	}

	private Arbitrary<String> lines() {
		Arbitrary<String> value = Arbitraries.strings()
			.withChars("az09:, {}\"")
			.withChars('ü', '€', '\u0000', 'x')
			.ofMaxLength(12)
			// Four UTF-8 bytes, so that cuts also fall inside the longest characters.
			.map((text) -> text.replace("x", "😀"));
		Arbitrary<String> field = Arbitraries.of("event", "data", "id", "retry", "", "colour");
		Arbitrary<String> content = Arbitraries.frequencyOf(
				Tuple.of(6, Combinators.combine(field, value).as((name, text) -> name + ": " + text)),
				Tuple.of(1, Arbitraries.integers().between(0, 5000).map((ms) -> "retry: " + ms)),
				Tuple.of(1, value.map((text) -> "data:" + text)), Tuple.of(3, Arbitraries.just("")));
		Arbitrary<String> end = Arbitraries.of(List.of("\n", "\r\n", "\r"));
		return Combinators.combine(content, end).as((text, lineEnd) -> text + lineEnd);
	}

}
