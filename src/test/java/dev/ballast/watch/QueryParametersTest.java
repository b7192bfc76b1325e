package dev.ballast.watch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import dev.ballast.web.BadParameterException;
import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.charsOf;
import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.maps;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueryParametersTest {

	static final Duration DEFAULT = Duration.ofSeconds(60);

	static final Duration MAX = Duration.ofSeconds(300);

	@Test
	void readsWaitsInMillisecondsSecondsAndMinutesAndCapsThem() {
		assertThat(QueryParameters.wait(null, DEFAULT, MAX)).isEqualTo(DEFAULT);
		assertThat(QueryParameters.wait("30s", DEFAULT, MAX)).isEqualTo(Duration.ofSeconds(30));
		assertThat(QueryParameters.wait("30", DEFAULT, MAX)).isEqualTo(Duration.ofSeconds(30));
		assertThat(QueryParameters.wait("1500ms", DEFAULT, MAX)).isEqualTo(Duration.ofMillis(1500));
		assertThat(QueryParameters.wait("2m", DEFAULT, MAX)).isEqualTo(Duration.ofMinutes(2));
		assertThat(QueryParameters.wait("10m", DEFAULT, MAX)).isEqualTo(MAX);
		assertThat(QueryParameters.wait("0s", DEFAULT, MAX)).isEqualTo(Duration.ZERO);
	}

	@Test
	void refusesWaitsThatAreNotDurations() {
		for (String bad : List.of("", "s", "-1s", "1.5s", "1h", "30 s", "1e3ms", "9999999999s")) {
			assertThatThrownBy(() -> QueryParameters.wait(bad, DEFAULT, MAX)).as(bad)
				.isInstanceOf(BadParameterException.class)
				.satisfies(pointsAt("#wait"));
		}
	}

	@Test
	void readsIndexesAsNonNegativeRevisions() {
		assertThat(QueryParameters.index(null)).isNull();
		assertThat(QueryParameters.index("0")).isZero();
		assertThat(QueryParameters.index("42")).isEqualTo(42);
		assertThat(QueryParameters.index("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
		for (String bad : List.of("", "-1", "+1", "1.0", "0x10", "abc", "9223372036854775808",
				"12345678901234567890")) {
			assertThatThrownBy(() -> QueryParameters.index(bad)).as(bad)
				.isInstanceOf(BadParameterException.class)
				.satisfies(pointsAt("#index"));
		}
	}

	@Test
	void acceptsSubscriberNamesOfTheInstanceIdPatternOnly() {
		assertThat(QueryParameters.subscriber("nginx-1.az_1:80")).isEqualTo("nginx-1.az_1:80");
		assertThat(QueryParameters.subscriber(null)).isNull();
		for (String bad : List.of("", "a b", "x".repeat(129), "ü", "a/b")) {
			assertThatThrownBy(() -> QueryParameters.subscriber(bad)).as(bad)
				.isInstanceOf(BadParameterException.class)
				.satisfies(pointsAt("#subscriber"));
		}
	}

	@Test
	void aSingleStreamResumesFromARevisionOrStartsOver() {
		assertThat(QueryParameters.resumeOne("s", "42")).isEqualTo(Map.of("s", first(42)));
		assertThat(QueryParameters.resumeOne("s", " 42 ")).isEqualTo(Map.of("s", first(42)));
		assertThat(QueryParameters.resumeOne("s", "42@9f3a01c2")).isEqualTo(Map.of("s", new Position(42, 0x9f3a01c2L)));
		for (String unusable : new String[] { null, "", "-1", "s:42", "4 2", "1e3", "42@", "42@9F3A01C2", "42@9f3a01c",
				"42@9f3a01c2a", "42@-1", "42@00000000x", "@9f3a01c2", "42@\u0000", "99999999999999999999" }) {
			assertThat(QueryParameters.resumeOne("s", unusable)).as(String.valueOf(unusable)).isEmpty();
		}
	}

	@Test
	void aMultiplexedStreamKeepsThePairsThatParse() {
		assertThat(QueryParameters.resumeMany("a:1,b-2:20@0000002a"))
			.isEqualTo(Map.of("a", first(1), "b-2", new Position(20, 42)));
		assertThat(QueryParameters.resumeMany("a:1,Bad:2,c:x,d:4,e:5@x,f:6@00000001"))
			.isEqualTo(Map.of("a", first(1), "d", first(4), "f", new Position(6, 1)));
		assertThat(QueryParameters.resumeMany(null)).isEmpty();
		assertThat(QueryParameters.resumeMany("42")).isEmpty();
	}

	/** What a multiplexed stream writes as its id reads back as the same positions. */
	@Test
	void multiplexedIdsReadBackExactly() {
		qt().forAll(maps()
			.of(charsOf("abz09", 1, 20),
					withEdges(longs().between(0, Long.MAX_VALUE), 0L, 1L, 999_999_999_999_999_999L,
							1_000_000_000_000_000_000L, Long.MAX_VALUE)
						.zip(withEdges(longs().between(0, 0xffff_ffffL), 0L, 1L, 0xffff_ffffL), Position::new))
			.ofSizeBetween(1, 64)).checkAssert(QueryParametersTest::readsBackExactly);
	}

	/**
	 * Found by the round-trip property: revisions of 19 digits, up to
	 * {@code Long.MAX_VALUE}, were refused on the way back in.
	 */
	@Test
	void multiplexedIdsOfNineteenDigitRevisionsReadBack() {
		readsBackExactly(Map.of("a", new Position(Long.MAX_VALUE, Position.FIRST), "b",
				new Position(1_000_000_000_000_000_000L, 0xffffffffL), "z9", new Position(0, 1)));
		assertThat(QueryParameters.index("1000000000000000000")).isEqualTo(1_000_000_000_000_000_000L);
		assertThat(QueryParameters.resumeOne("s", "9223372036854775807"))
			.isEqualTo(Map.of("s", new Position(Long.MAX_VALUE, Position.FIRST)));
	}

	private static Position first(long revision) {
		return new Position(revision, Position.FIRST);
	}

	private static void readsBackExactly(Map<String, Position> positions) {
		Watcher watcher = new Watcher(List.copyOf(positions.keySet()), true, null, Map.of(), 10, 0, "token", null,
				closed -> {
				});
		positions.forEach(watcher::advance);
		String id = watcher.eventId(positions.keySet().iterator().next());
		assertThat(QueryParameters.resumeMany(id)).isEqualTo(new TreeMap<>(positions));
	}

	private static Consumer<Throwable> pointsAt(String pointer) {
		return thrown -> assertThat(((BadParameterException) thrown).errors().getFirst().pointer()).isEqualTo(pointer);
	}

}
