package dev.ballast.weight;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.weight.WeightReading.Exact;
import dev.ballast.weight.WeightReading.Normalized;
import dev.ballast.weight.WeightReading.Refused;
import java.math.BigDecimal;
import java.math.BigInteger;
import static dev.ballast.support.Properties.anyChars;
import static dev.ballast.support.Properties.charsBetween;
import static dev.ballast.support.Properties.qt;
import static dev.ballast.support.Properties.withEdges;
import static org.quicktheories.generators.SourceDSL.bigDecimals;
import static org.quicktheories.generators.SourceDSL.bigIntegers;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.floats;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.maps;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BigIntegerNode;
import tools.jackson.databind.node.BinaryNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.DoubleNode;
import tools.jackson.databind.node.FloatNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ShortNode;
import tools.jackson.databind.node.StringNode;

class WeightReaderPropertiesTest {

	private static final String RULE = "weight must be an integer from 0 to 10000; got ";

	private static final String STRICT_HINT = " (the service's weight policy is STRICT; send the JSON integer ";

	private static final BigInteger TEN_THOUSAND = BigInteger.valueOf(10_000);

	private static final BigInteger HUGE = BigInteger.TEN.pow(30);

	// The documented NORMALIZE string rule, written independently of the parser's own
	// pattern.
	private static final Pattern SPACED_CANONICAL_INTEGER = Pattern.compile("^ *(0|[1-9][0-9]*) *$");

	private static final Pattern UNSPACED_CANONICAL_INTEGER = Pattern.compile("^(0|[1-9][0-9]*)$");

	private static final int TRIES = 3000;

	@Test
	void strictAcceptsExactlyIntegralNodesFromZeroToTenThousand() {
		qt(TRIES).forAll(jsonValues()).checkAssert((node) -> {
			WeightReading reading = WeightReader.read("weight", node, WeightPolicy.STRICT);

			Optional<Integer> expected = integralWeight(node);
			if (expected.isPresent()) {
				assertThat(reading).isEqualTo(new Exact(Weight.of(expected.get())));
			}
			else {
				assertThat(reading).isInstanceOf(Refused.class);
			}
		});
	}

	@Test
	void normalizeAcceptsExactlyTheDocumentedSet() {
		Map<String, Integer> outcomes = new TreeMap<>();
		qt(TRIES).forAll(jsonValues()).checkAssert((node) -> {
			WeightReading reading = WeightReader.read("weight", node, WeightPolicy.NORMALIZE);
			outcomes.merge(reading.getClass().getSimpleName(), 1, Integer::sum);

			Optional<Integer> exact = integralWeight(node);
			Optional<Integer> converted = convertibleWeight(node);
			if (exact.isPresent()) {
				assertThat(reading).isEqualTo(new Exact(Weight.of(exact.get())));
			}
			else if (converted.isPresent()) {
				assertThat(reading).isEqualTo(new Normalized(Weight.of(converted.get()), ReceivedValue.describe(node)));
			}
			else {
				assertThat(reading).isInstanceOf(Refused.class);
			}
		});
		// Guards the generator: the property says little unless every outcome is drawn
		// often.
		int drawn = outcomes.values().stream().mapToInt(Integer::intValue).sum();
		assertThat(outcomes.getOrDefault("Exact", 0) * 100.0 / drawn).as("%% Exact of %s", outcomes).isGreaterThan(3);
		assertThat(outcomes.getOrDefault("Normalized", 0) * 100.0 / drawn).as("%% Normalized of %s", outcomes)
			.isGreaterThan(5);
		assertThat(outcomes.getOrDefault("Refused", 0) * 100.0 / drawn).as("%% Refused of %s", outcomes)
			.isGreaterThan(30);
	}

	@Test
	void strictHintsAtTheIntegerExactlyWhenNormalizeWouldConvert() {
		qt(TRIES).forAll(jsonValues()).checkAssert(WeightReaderPropertiesTest::hintsExactlyWhenNormalizeWouldConvert);
	}

	private static void hintsExactlyWhenNormalizeWouldConvert(JsonNode node) {
		WeightReading reading = WeightReader.read("weight", node, WeightPolicy.STRICT);

		Optional<Integer> converted = convertibleWeight(node);
		if (converted.isPresent()) {
			assertThat(reading)
				.isEqualTo(new Refused(RULE + ReceivedValue.describe(node) + STRICT_HINT + converted.get() + ")"));
		}
		else if (reading instanceof Refused(String detail)) {
			assertThat(detail).doesNotContain(STRICT_HINT);
		}
	}

	@Test
	void neitherPolicyThrowsAndEveryRefusalStatesTheRule() {
		qt(TRIES).forAll(jsonValues(), Generate.enumValues(WeightPolicy.class))
			.checkAssert(WeightReaderPropertiesTest::readsWithoutThrowingAndStatesTheRule);
	}

	private static void readsWithoutThrowingAndStatesTheRule(JsonNode node, WeightPolicy policy) {
		WeightReading reading = WeightReader.read("weight", node, policy);

		if (reading instanceof Refused(String detail)) {
			assertThat(detail).startsWith(RULE);
			// Forty shown characters, each escaped to at most six, plus the rule and the
			// hint.
			assertThat(detail.length()).isLessThanOrEqualTo(RULE.length() + 260 + STRICT_HINT.length() + 6);
			assertThat(detail.chars()).noneMatch(Character::isISOControl);
		}
	}

	/**
	 * Consul's {@code Weights.Passing}: exactly what STRICT accepts, and no refusal
	 * mentions a service's policy, which does not decide it.
	 */
	@Test
	void anIntegerReadingAcceptsExactlyIntegralNodesInRange() {
		qt(TRIES).forAll(jsonValues()).checkAssert(node -> {
			WeightReading reading = WeightReader.readInteger("Weights.Passing", node);

			Optional<Integer> expected = integralWeight(node);
			if (expected.isPresent()) {
				assertThat(reading).isEqualTo(new Exact(Weight.of(expected.get())));
			}
			else {
				assertThat(reading).isEqualTo(new Refused(
						"Weights.Passing must be an integer from 0 to 10000; got " + ReceivedValue.describe(node)));
			}
		});
	}

	/**
	 * Consul's {@code Meta.weight}: only the one spelling of each weight, without the
	 * spaces NORMALIZE forgives.
	 */
	@Test
	void aCanonicalTextReadingAcceptsExactlyOneSpellingOfEachWeight() {
		qt(TRIES).forAll(strings()).checkAssert(node -> {
			String text = node.stringValue();
			WeightReading reading = WeightReader.readCanonicalText("Meta.weight", text);

			Optional<Integer> expected = UNSPACED_CANONICAL_INTEGER.matcher(text).matches()
					? weightOf(new BigInteger(text)) : Optional.empty();
			if (expected.isPresent()) {
				assertThat(reading).isEqualTo(new Exact(Weight.of(expected.get())));
				assertThat(String.valueOf(expected.get())).isEqualTo(text);
			}
			else {
				assertThat(reading)
					.isEqualTo(new Refused("Meta.weight must be a canonical decimal from \"0\" to \"10000\"; got "
							+ ReceivedValue.describe(node)));
			}
		});
		IntStream.rangeClosed(0, 10_000)
			.forEach(value -> assertThat(WeightReader.readCanonicalText("Meta.weight", String.valueOf(value)))
				.isEqualTo(new Exact(Weight.of(value))));
	}

	/** Exhaustive: all 10,001 weights. */
	@Test
	void everyWeightIsReadFromEachOfItsAcceptedShapes() {
		IntStream.rangeClosed(0, 10_000).forEach(WeightReaderPropertiesTest::isReadFromEachOfItsAcceptedShapes);
	}

	private static void isReadFromEachOfItsAcceptedShapes(int value) {
		Weight weight = Weight.of(value);

		assertThat(WeightReader.read("weight", IntNode.valueOf(value), WeightPolicy.STRICT))
			.isEqualTo(new Exact(weight));
		assertThat(WeightReader.read("weight", StringNode.valueOf(String.valueOf(value)), WeightPolicy.NORMALIZE))
			.isEqualTo(new Normalized(weight, "the string \"" + value + "\""));
		assertThat(WeightReader.read("weight", DoubleNode.valueOf(value), WeightPolicy.NORMALIZE))
			.isEqualTo(new Normalized(weight, "the number " + value + ".0"));
	}

	/** The STRICT oracle: a node written as a JSON integer, in range. */
	private static Optional<Integer> integralWeight(JsonNode node) {
		boolean integral = node instanceof IntNode || node instanceof LongNode || node instanceof ShortNode
				|| node instanceof BigIntegerNode;
		return integral ? weightOf(new BigInteger(node.numberValue().toString())) : Optional.empty();
	}

	/** The oracle for what NORMALIZE converts beyond the STRICT set. */
	private static Optional<Integer> convertibleWeight(JsonNode node) {
		return switch (node) {
			case StringNode string -> spacedCanonicalInteger(string.stringValue());
			case DoubleNode number -> wholeDouble(number.doubleValue());
			case FloatNode number -> wholeDouble(number.floatValue());
			case DecimalNode number -> wholeDecimal(number.decimalValue());
			default -> Optional.empty();
		};
	}

	private static Optional<Integer> spacedCanonicalInteger(String text) {
		Matcher matcher = SPACED_CANONICAL_INTEGER.matcher(text);
		return matcher.matches() ? weightOf(new BigInteger(matcher.group(1))) : Optional.empty();
	}

	private static Optional<Integer> wholeDouble(double number) {
		boolean whole = Double.isFinite(number) && number == Math.floor(number) && number >= 0 && number <= 10_000;
		return whole ? Optional.of((int) number) : Optional.empty();
	}

	private static Optional<Integer> wholeDecimal(BigDecimal number) {
		boolean inRange = number.signum() >= 0 && number.compareTo(new BigDecimal(TEN_THOUSAND)) <= 0;
		return inRange && number.remainder(BigDecimal.ONE).signum() == 0 ? Optional.of(number.intValue())
				: Optional.empty();
	}

	private static Optional<Integer> weightOf(BigInteger number) {
		boolean inRange = number.signum() >= 0 && number.compareTo(TEN_THOUSAND) <= 0;
		return inRange ? Optional.of(number.intValue()) : Optional.empty();
	}

	/**
	 * Any JSON value: mostly scalars, and arrays and objects of them nested a few deep.
	 */
	private static Gen<JsonNode> jsonValues() {
		return jsonValues(4);
	}

	private static Gen<JsonNode> jsonValues(int depth) {
		if (depth == 0) {
			return scalars();
		}
		Gen<JsonNode> inner = jsonValues(depth - 1);
		Gen<JsonNode> arrays = lists().of(inner)
			.ofSizeBetween(0, 3)
			.map(items -> JsonNodeFactory.instance.arrayNode().addAll(items));
		Gen<JsonNode> objects = maps().of(charsBetween('a', 'z', 0, 3).mix(charsBetween('A', 'Z', 0, 3)), inner)
			.ofSizeBetween(0, 3)
			.map(WeightReaderPropertiesTest::objectOf);
		return Generate.frequency(List.of(Pair.of(4, scalars()), Pair.of(1, arrays), Pair.of(1, objects)));
	}

	private static JsonNode objectOf(Map<String, JsonNode> properties) {
		var object = JsonNodeFactory.instance.objectNode();
		properties.forEach(object::set);
		return object;
	}

	private static Gen<JsonNode> scalars() {
		return Generate.frequency(List.of(Pair.of(4, integralNumbers()), Pair.of(4, floatingPoint()),
				Pair.of(4, decimals()), Pair.of(5, strings()), Pair.of(1, others())));
	}

	private static Gen<JsonNode> integralNumbers() {
		Gen<BigInteger> huge = bigIntegers().ofBytes(14)
			.map(value -> value.mod(HUGE.shiftLeft(1).add(BigInteger.ONE)).subtract(HUGE));
		return Generate.oneOf(
				withEdges(integers().all(), Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE).map(IntNode::valueOf),
				nearWeights().map(IntNode::valueOf),
				withEdges(longs().all(), Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE).map(LongNode::valueOf),
				nearWeights().map(value -> LongNode.valueOf(value)),
				withEdges(integers().between(Short.MIN_VALUE, Short.MAX_VALUE), (int) Short.MIN_VALUE, 0,
						(int) Short.MAX_VALUE)
					.map(value -> ShortNode.valueOf(value.shortValue())),
				withEdges(huge, HUGE.negate(), BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE),
						BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE), HUGE)
					.map(BigIntegerNode::valueOf),
				nearWeights().map(value -> BigIntegerNode.valueOf(BigInteger.valueOf(value))));
	}

	/** From -3 to 10,003: every weight and a few just outside, the ends among them. */
	private static Gen<Integer> nearWeights() {
		return withEdges(integers().between(-3, 10_003), -1, 0, 1, 9_999, 10_000, 10_001);
	}

	private static Gen<JsonNode> floatingPoint() {
		Gen<Double> anyDouble = withEdges(doubles().any(), Double.NaN, Double.POSITIVE_INFINITY,
				Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE,
				-Double.MAX_VALUE, 0.0, -0.0, 1.0, -1.0, 0.5, 10_000.0, 10_000.000000000002);
		Gen<Double> tenths = withEdges(integers().between(-30, 100_030).map(tens -> tens / 10.0), -0.0, 0.0, 0.1,
				9_999.9, 10_000.0, 10_000.1);
		Gen<Float> anyFloat = withEdges(floats().any(), Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
				Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 0.0f, -0.0f, 10_000.0f,
				10_000.001f);
		return Generate.oneOf(anyDouble.map(DoubleNode::valueOf), tenths.map(DoubleNode::valueOf),
				nearWeights().map(value -> DoubleNode.valueOf(value)), anyFloat.map(FloatNode::valueOf),
				nearWeights().map(value -> FloatNode.valueOf(value)));
	}

	private static Gen<JsonNode> decimals() {
		Gen<BigDecimal> scaleTwo = bigDecimals().ofBytes(20).withScale(2);
		Gen<BigDecimal> anyScale = integers().between(-20_000_000, 20_000_000)
			.zip(withEdges(integers().between(-450, 450), -450, -1, 0, 1, 450),
					(unscaled, scale) -> new BigDecimal(BigInteger.valueOf(unscaled), scale));
		Gen<BigDecimal> wholeWithZeros = nearWeights().zip(integers().between(0, 4),
				(value, scale) -> BigDecimal.valueOf(value).setScale(scale));
		Gen<BigDecimal> wholeWithExponent = integers().between(0, 101)
			.zip(integers().between(-3, 0), (unscaled, scale) -> new BigDecimal(BigInteger.valueOf(unscaled), scale));
		return Generate
			.oneOf(scaleTwo, anyScale, wholeWithZeros, wholeWithExponent, Generate.constant(new BigDecimal("1E+400")))
			.map(DecimalNode::valueOf);
	}

	private static Gen<JsonNode> strings() {
		Gen<String> padding = Generate.pick(List.of("", "", " ", "  ", "\t"));
		Gen<String> digits = Generate.oneOf(integers().between(0, 10_003).map((value) -> String.valueOf(value)),
				digitStrings(7));
		Gen<String> numberLike = padding.zip(Generate.pick(List.of("", "", "", "+", "-", "0", "00")), digits,
				Generate.pick(List.of("", "", "", ".0", ".5", "e2", "x")), padding,
				(before, prefix, number, suffix, after) -> before + prefix + number + suffix + after);
		Gen<String> strings = Generate.oneOf(anyChars(60), charsBetween('\u0000', '\u007f', 0, 8), numberLike,
				nearWeights().map((value) -> String.valueOf(value)));
		// The string "0" is why Ballast exists.
		return withEdges(strings, "0", " 0 ", "10000", "10001", "00", "-0", "+1", "1e2", "1.0", "\t1", "\u0663",
				"\uff15", "")
			.map(StringNode::valueOf);
	}

	/**
	 * Up to {@code maxLength} digits: mostly ASCII, one in four any Unicode digit
	 * ({@code ٣}, {@code ５}, ...) that {@link Character#isDigit} accepts.
	 */
	private static Gen<String> digitStrings(int maxLength) {
		List<Character> unicodeDigits = IntStream.rangeClosed(Character.MIN_VALUE, Character.MAX_VALUE)
			.filter(Character::isDigit)
			.mapToObj(c -> (char) c)
			.toList();
		Gen<Character> digit = Generate.characters('0', '9').mix(Generate.pick(unicodeDigits), 25);
		return lists().of(digit).ofSizeBetween(0, maxLength).map(chars -> {
			StringBuilder text = new StringBuilder();
			chars.forEach(text::append);
			return text.toString();
		});
	}

	private static Gen<JsonNode> others() {
		return Generate
			.pick(List.of(NullNode.getInstance(), MissingNode.getInstance(), BooleanNode.TRUE, BooleanNode.FALSE,
					BinaryNode.valueOf(new byte[] { 0, 42 }), JsonNodeFactory.instance.pojoNode(Weight.ZERO)));
	}

}
