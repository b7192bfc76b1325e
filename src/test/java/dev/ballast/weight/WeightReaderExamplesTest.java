package dev.ballast.weight;

import static dev.ballast.weight.WeightPolicy.NORMALIZE;
import static dev.ballast.weight.WeightPolicy.STRICT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.ballast.weight.WeightReading.Exact;
import dev.ballast.weight.WeightReading.Normalized;
import dev.ballast.weight.WeightReading.Refused;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;

class WeightReaderExamplesTest {

	/** Reads bodies the way the server does: Jackson defaults plus exact decimals. */
	private static final JsonMapper SERVER_MAPPER = JsonMapper.builder()
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	/**
	 * Jackson's defaults alone, where floats become doubles and 1e400 becomes Infinity.
	 */
	private static final JsonMapper DOUBLE_MAPPER = JsonMapper.builder().build();

	private static final String RULE = "weight must be an integer from 0 to 10000; got ";

	static Stream<Arguments> everyListedValueUnderBothPolicies() {
		return Stream
			.of(both("0", exact(0)), both("1", exact(1)), both("100", exact(100)), both("10000", exact(10_000)),
					both("10001", refused("the number 10001")), both("-1", refused("the number -1")),
					convertible("\"0\"", 0, "the string \"0\""), convertible("\"100\"", 100, "the string \"100\""),
					convertible("\" 42 \"", 42, "the string \" 42 \""),
					convertible("\"10000\"", 10_000, "the string \"10000\""),
					both("\"10001\"", refused("the string \"10001\"")), both("\"007\"", refused("the string \"007\"")),
					both("\"+5\"", refused("the string \"+5\"")), both("\"-0\"", refused("the string \"-0\"")),
					both("\"1e2\"", refused("the string \"1e2\"")), both("\"0x10\"", refused("the string \"0x10\"")),
					both("\"abc\"", refused("the string \"abc\"")), both("\"NaN\"", refused("the string \"NaN\"")),
					both("\"\"", refused("the string \"\"")), both("1.5", refused("the number 1.5")),
					convertible("100.0", 100, "the number 100.0"), convertible("1e2", 100, "the number 1E+2"),
					// BigDecimal has no negative zero, so the sign is already gone when
					// we see it.
					convertible("-0.0", 0, "the number 0.0"), both("1e400", refused("the number 1E+400")),
					both("null", refused("null")), both("true", refused("true")), both("false", refused("false")),
					both("[]", refused("an array")), both("{}", refused("an object")),
					both("99999999999999999999999", refused("the number 99999999999999999999999")))
			.flatMap(Stream::of);
	}

	@ParameterizedTest(name = "{0} under {1} -> {2}")
	@MethodSource
	void everyListedValueUnderBothPolicies(String json, WeightPolicy policy, WeightReading expected) {
		assertThat(WeightReader.read("weight", SERVER_MAPPER.readTree(json), policy)).isEqualTo(expected);
	}

	static Stream<Arguments> valuesThatDefaultJacksonReadsAsDoubles() {
		return Stream
			.of(both("1e400", refused("the number Infinity")), both("-1e400", refused("the number -Infinity")),
					both("1.5", refused("the number 1.5")), convertible("100.0", 100, "the number 100.0"),
					convertible("1e2", 100, "the number 100.0"), convertible("-0.0", 0, "the number -0.0"))
			.flatMap(Stream::of);
	}

	@ParameterizedTest(name = "{0} under {1} -> {2}")
	@MethodSource
	void valuesThatDefaultJacksonReadsAsDoubles(String json, WeightPolicy policy, WeightReading expected) {
		JsonNode node = DOUBLE_MAPPER.readTree(json);

		assertThat(node).isInstanceOf(DoubleNode.class);
		assertThat(WeightReader.read("weight", node, policy)).isEqualTo(expected);
	}

	@Test
	void serverMapperKeepsFloatsAsExactDecimals() {
		assertThat(SERVER_MAPPER.readTree("1e400")).isInstanceOf(DecimalNode.class);
	}

	@ParameterizedTest
	@EnumSource(WeightPolicy.class)
	void javaNullIsReadLikeJsonNull(WeightPolicy policy) {
		assertThat(WeightReader.read("weight", null, policy)).isEqualTo(refused("null"));
	}

	@ParameterizedTest
	@EnumSource(WeightPolicy.class)
	void missingNodeIsRefusedAsNoValue(WeightPolicy policy) {
		assertThat(WeightReader.read("weight", MissingNode.getInstance(), policy)).isEqualTo(refused("no value"));
	}

	@ParameterizedTest
	@EnumSource(WeightPolicy.class)
	void refusalsNameTheFieldThatWasRead(WeightPolicy policy) {
		assertThat(WeightReader.read("defaultWeight", JsonNodeFactory.instance.booleanNode(true), policy))
			.isEqualTo(new Refused("defaultWeight must be an integer from 0 to 10000; got true"));
	}

	@Test
	void strictHintNamesTheFieldAndTheIntegerToSend() {
		assertThat(WeightReader.read("defaultWeight", SERVER_MAPPER.readTree("\" 42 \""), STRICT))
			.isEqualTo(new Refused("defaultWeight must be an integer from 0 to 10000; got the string \" 42 \""
					+ " (the service's weight policy is STRICT; send the JSON integer 42)"));
	}

	@Test
	void surroundingTabsAreNotStripped() {
		assertThat(WeightReader.read("weight", SERVER_MAPPER.readTree("\"\\t42\""), NORMALIZE))
			.isEqualTo(refused("the string \"\\t42\""));
	}

	@Test
	void acceptedWeightIsOfferedWhicheverWayItWasRead() {
		assertThat(exact(5).accepted()).contains(Weight.of(5));
		assertThat(new Normalized(Weight.of(5), "the string \"5\"").accepted()).contains(Weight.of(5));
		assertThat(refused("true").accepted()).isEmpty();
	}

	private static Arguments[] both(String json, WeightReading expected) {
		return new Arguments[] { arguments(json, STRICT, expected), arguments(json, NORMALIZE, expected) };
	}

	private static Arguments[] convertible(String json, int weight, String received) {
		return new Arguments[] {
				arguments(json, STRICT,
						new Refused(RULE + received + " (the service's weight policy is STRICT; send the JSON integer "
								+ weight + ")")),
				arguments(json, NORMALIZE, new Normalized(Weight.of(weight), received)) };
	}

	private static Exact exact(int weight) {
		return new Exact(Weight.of(weight));
	}

	private static Refused refused(String received) {
		return new Refused(RULE + received);
	}

}
