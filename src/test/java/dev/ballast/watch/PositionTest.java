package dev.ballast.watch;

import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

class PositionTest {

	/** The grammar of an event id, written independently of the parser. */
	private static final Pattern ID = Pattern.compile("(0|[1-9][0-9]*|0[0-9]+)(@[0-9a-f]{8})?");

	@Test
	void everyPositionReadsBackFromItsId() {
		qt().forAll(withEdges(longs().between(0, Long.MAX_VALUE), 0L, 1L, Long.MAX_VALUE),
				withEdges(longs().between(0, 0xffff_ffffL), 0L, 1L, 0xffff_ffffL))
			.checkAssert((revision, history) -> {
				Position position = new Position(revision, history);
				assertThat(position.id()).matches(ID);
				assertThat(Position.parse(position.id())).isEqualTo(position);
			});
	}

	@Test
	void theFirstHistoryKeepsPlainRevisionsAndOthersNameTheirs() {
		assertThat(new Position(42, Position.FIRST).id()).isEqualTo("42");
		assertThat(new Position(42, 0x9f3a01c2L).id()).isEqualTo("42@9f3a01c2");
		assertThat(new Position(7, 1).id()).isEqualTo("7@00000001");
		assertThat(Position.parse("42")).isEqualTo(new Position(42, Position.FIRST));
		assertThat(Position.parse("42@00000000")).as("the first history spelt out").isEqualTo(Position.parse("42"));
	}

	@Test
	void anythingElseIsNoPosition() {
		qt().forAll(strings().allPossible().ofLengthBetween(0, 30))
			.assuming(text -> !ID.matcher(text).matches())
			.checkAssert(text -> assertThat(Position.parse(text)).as(text).isNull());
		for (String junk : new String[] { "", "-1", "1e3", "42@", "@00000001", "42@9F3A01C2", "42@9f3a01c",
				"42@-0000001", "42@9f3a01c2@9f3a01c2", "9223372036854775808", "42\u0000", "\ud800" }) {
			assertThat(Position.parse(junk)).as(junk).isNull();
		}
	}

	@Test
	void sameChangeOnlyInTheSameHistoryExceptBeforeAny() {
		assertThat(new Position(5, 1).sameAs(new Position(5, 1))).isTrue();
		assertThat(new Position(5, 1).sameAs(new Position(5, 2))).as("revision 5 handed out twice").isFalse();
		assertThat(new Position(5, 1).sameAs(new Position(6, 1))).isFalse();
		assertThat(new Position(0, 1).sameAs(new Position(0, 2))).as("nothing happened yet, in either").isTrue();
		assertThat(new Position(5, Position.UNKNOWN).sameAs(new Position(5, Position.UNKNOWN)))
			.as("an unknown history is never taken for a known one, nor for itself")
			.isFalse();
	}

	@Test
	void anUnknownHistoryIsNeverSent() {
		assertThatThrownBy(() -> new Position(5, Position.UNKNOWN).id()).isInstanceOf(IllegalStateException.class);
		assertThatThrownBy(() -> new Position(-1, 0)).isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> new Position(1, 0x1_0000_0000L)).isInstanceOf(IllegalArgumentException.class);
	}

}
