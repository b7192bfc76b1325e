package dev.ballast.weight;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.BinaryNode;
import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.StringNode;

class ReceivedValueTest {

	private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

	@Test
	void refusalSaysWhatWasExpectedAndWhatWasReceived() {
		assertThat(ReceivedValue.refusal("port", "an integer from 1 to 65535", StringNode.valueOf("8080")))
			.isEqualTo("port must be an integer from 1 to 65535; got the string \"8080\"");
	}

	@Test
	void everyKindOfNodeHasAName() {
		assertThat(ReceivedValue.describe(null)).isEqualTo("null");
		assertThat(ReceivedValue.describe(NODES.nullNode())).isEqualTo("null");
		assertThat(ReceivedValue.describe(MissingNode.getInstance())).isEqualTo("no value");
		assertThat(ReceivedValue.describe(NODES.booleanNode(false))).isEqualTo("false");
		assertThat(ReceivedValue.describe(NODES.arrayNode().add(1))).isEqualTo("an array");
		assertThat(ReceivedValue.describe(NODES.objectNode().put("a", 1))).isEqualTo("an object");
		assertThat(ReceivedValue.describe(BinaryNode.valueOf(new byte[] { 1, 2 }))).isEqualTo("binary data");
		assertThat(ReceivedValue.describe(NODES.pojoNode(new Object()))).isEqualTo("an embedded Java object");
	}

	@Test
	void numbersAreWrittenAsJavaPrintsThem() {
		assertThat(ReceivedValue.describe(NODES.numberNode(-7L))).isEqualTo("the number -7");
		assertThat(ReceivedValue.describe(NODES.numberNode(new BigDecimal("1.50")))).isEqualTo("the number 1.50");
		assertThat(ReceivedValue.describe(DoubleNode.valueOf(Double.NaN))).isEqualTo("the number NaN");
	}

	@Test
	void longNumbersAreCutAfterFortyCharacters() {
		BigInteger huge = BigInteger.TEN.pow(100);

		assertThat(ReceivedValue.describe(NODES.numberNode(huge))).isEqualTo("the number 1" + "0".repeat(39) + "…");
	}

	@Test
	void stringsOfFortyCharactersAreShownWhole() {
		String forty = "x".repeat(40);

		assertThat(ReceivedValue.describe(StringNode.valueOf(forty))).isEqualTo("the string \"" + forty + "\"");
	}

	@Test
	void longerStringsAreCutAfterFortyCharacters() {
		String giant = "y".repeat(1_000_000);

		assertThat(ReceivedValue.describe(StringNode.valueOf(giant)))
			.isEqualTo("the string \"" + "y".repeat(40) + "…\"");
	}

	@Test
	void cuttingNeverSplitsASurrogatePair() {
		String emoji = "\uD83D\uDE00";

		assertThat(ReceivedValue.describe(StringNode.valueOf(emoji.repeat(41))))
			.isEqualTo("the string \"" + emoji.repeat(40) + "…\"");
	}

	@Test
	void quotesAndBackslashesAreEscapedTheJsonWay() {
		assertThat(ReceivedValue.describe(StringNode.valueOf("a\"b\\c"))).isEqualTo("the string \"a\\\"b\\\\c\"");
	}

	@Test
	void controlCharactersAreEscaped() {
		assertThat(ReceivedValue.describe(StringNode.valueOf("1\n2\r3\t4\u00005\u001b6\u007f")))
			.isEqualTo("the string \"1\\n2\\r3\\t4\\u00005\\u001b6\\u007f\"");
	}

	@Test
	void invisibleFormattingCharactersAreEscaped() {
		assertThat(ReceivedValue.describe(StringNode.valueOf("\u202e1\u200b\u2028\uD800")))
			.isEqualTo("the string \"\\u202e1\\u200b\\u2028\\ud800\"");
	}

	@Test
	void escapesDoNotCountTowardsTheCut() {
		assertThat(ReceivedValue.describe(StringNode.valueOf("\n".repeat(41))))
			.isEqualTo("the string \"" + "\\n".repeat(40) + "…\"");
	}

}
