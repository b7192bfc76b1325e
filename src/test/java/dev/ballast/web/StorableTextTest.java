package dev.ballast.web;

import org.junit.jupiter.api.Test;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.strings;

/**
 * Text the registry cannot refuse (what a probed server answered) made storable by the
 * border's rule: checked against an oracle that walks code points, where an unpaired
 * surrogate is a code point in the surrogate range.
 */
class StorableTextTest {

	@Test
	void replacesEachNulAndUnpairedSurrogateAndNothingElse() {
		qt().forAll(strings().basicMultilingualPlaneAlphabet().ofLengthBetween(0, 40)).checkAssert(text -> {
			String replaced = StorableText.replacingUnstorable(text);
			assertThat(replaced).isEqualTo(oracle(text));
			assertThat(StorableText.storable(replaced)).isTrue();
		});
	}

	@Test
	void keepsPairsAndReplacesHalves() {
		assertThat(StorableText.replacingUnstorable("a\u0000b")).isEqualTo("a\uFFFDb");
		assertThat(StorableText.replacingUnstorable("\uD83D\uDE00")).isEqualTo("\uD83D\uDE00");
		assertThat(StorableText.replacingUnstorable("\uDE00\uD83D")).isEqualTo("\uFFFD\uFFFD");
		assertThat(StorableText.replacingUnstorable("x\uD83D")).isEqualTo("x\uFFFD");
		String storable = "already fine";
		assertThat(StorableText.replacingUnstorable(storable)).isSameAs(storable);
	}

	private static String oracle(String text) {
		StringBuilder expected = new StringBuilder();
		text.codePoints().forEach(point -> {
			if (point == 0 || (point >= 0xD800 && point <= 0xDFFF)) {
				expected.append('\uFFFD');
			}
			else {
				expected.appendCodePoint(point);
			}
		});
		return expected.toString();
	}

}
