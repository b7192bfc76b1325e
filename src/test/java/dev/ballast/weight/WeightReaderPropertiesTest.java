package dev.ballast.weight;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.weight.WeightReading.Exact;
import dev.ballast.weight.WeightReading.Normalized;
import dev.ballast.weight.WeightReading.Refused;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
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

	@Property(tries = 3000)
	void strictAcceptsExactlyIntegralNodesFromZeroToTenThousand(@ForAll("jsonValues") JsonNode node) {
		WeightReading reading = WeightReader.read("weight", node, WeightPolicy.STRICT);

		Optional<Integer> expected = integralWeight(node);
		if (expected.isPresent()) {
			assertThat(reading).isEqualTo(new Exact(Weight.of(expected.get())));
		}
		else {
			assertThat(reading).isInstanceOf(Refused.class);
		}
	}

	@Property(tries = 3000)
	void normalizeAcceptsExactlyTheDocumentedSet(@ForAll("jsonValues") JsonNode node) {
		WeightReading reading = WeightReader.read("weight", node, WeightPolicy.NORMALIZE);
		// Guards the generator: the property says little unless every outcome is drawn
		// often.
		Statistics.label("outcome").collect(reading.getClass().getSimpleName());
		Statistics.label("outcome").coverage(coverage -> {
			coverage.check("Exact").percentage(percent -> percent > 3);
			coverage.check("Normalized").percentage(percent -> percent > 5);
			coverage.check("Refused").percentage(percent -> percent > 30);
		});

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
	}

	@Property(tries = 3000)
	void strictHintsAtTheIntegerExactlyWhenNormalizeWouldConvert(@ForAll("jsonValues") JsonNode node) {
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

	@Property(tries = 3000)
	void neitherPolicyThrowsAndEveryRefusalStatesTheRule(@ForAll("jsonValues") JsonNode node,
			@ForAll WeightPolicy policy) {
		WeightReading reading = WeightReader.read("weight", node, policy);

		if (reading instanceof Refused(String detail)) {
			assertThat(detail).startsWith(RULE);
			// Forty shown characters, each escaped to at most six, plus the rule and the
			// hint.
			assertThat(detail.length()).isLessThanOrEqualTo(RULE.length() + 260 + STRICT_HINT.length() + 6);
			assertThat(detail.chars()).noneMatch(Character::isISOControl);
		}
	}

	@Property(tries = 10_001, generation = GenerationMode.EXHAUSTIVE)
	void everyWeightIsReadFromEachOfItsAcceptedShapes(@ForAll @IntRange(min = 0, max = 10_000) int value) {
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

	@Provide
	Arbitrary<JsonNode> jsonValues() {
		return Arbitraries.lazyOf(this::scalars, this::scalars, this::scalars, this::scalars, this::arrays,
				this::objects);
	}

	private Arbitrary<JsonNode> arrays() {
		return jsonValues().list().ofMaxSize(3).map(items -> JsonNodeFactory.instance.arrayNode().addAll(items));
	}

	private Arbitrary<JsonNode> objects() {
		return Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(3), jsonValues())
			.ofMaxSize(3)
			.map(this::objectOf);
	}

	private JsonNode objectOf(Map<String, JsonNode> properties) {
		var object = JsonNodeFactory.instance.objectNode();
		properties.forEach(object::set);
		return object;
	}

	private Arbitrary<JsonNode> scalars() {
		return Arbitraries.frequencyOf(Tuple.of(4, integers()), Tuple.of(4, floatingPoint()), Tuple.of(4, decimals()),
				Tuple.of(5, strings()), Tuple.of(1, others()));
	}

	private Arbitrary<JsonNode> integers() {
		return Arbitraries.oneOf(List.of(Arbitraries.integers().map(IntNode::valueOf),
				Arbitraries.integers().between(-3, 10_003).map(IntNode::valueOf),
				Arbitraries.longs().map(LongNode::valueOf),
				Arbitraries.longs().between(-3, 10_003).map(LongNode::valueOf),
				Arbitraries.shorts().map(ShortNode::valueOf),
				Arbitraries.bigIntegers().between(HUGE.negate(), HUGE).map(BigIntegerNode::valueOf),
				Arbitraries.bigIntegers()
					.between(BigInteger.valueOf(-3), BigInteger.valueOf(10_003))
					.map(BigIntegerNode::valueOf)));
	}

	private Arbitrary<JsonNode> floatingPoint() {
		return Arbitraries.oneOf(List.of(Arbitraries.doubles().withStandardSpecialValues().map(DoubleNode::valueOf),
				Arbitraries.doubles().between(-3, 10_003).ofScale(1).withSpecialValue(-0.0).map(DoubleNode::valueOf),
				Arbitraries.integers().between(-3, 10_003).map(DoubleNode::valueOf),
				Arbitraries.floats().withStandardSpecialValues().map(FloatNode::valueOf),
				Arbitraries.integers().between(-3, 10_003).map(value -> FloatNode.valueOf(value))));
	}

	private Arbitrary<JsonNode> decimals() {
		Arbitrary<BigDecimal> anyScale = Combinators
			.combine(Arbitraries.bigIntegers().between(BigInteger.valueOf(-20_000_000), BigInteger.valueOf(20_000_000)),
					Arbitraries.integers().between(-450, 450))
			.as(BigDecimal::new);
		Arbitrary<BigDecimal> wholeWithZeros = Combinators
			.combine(Arbitraries.integers().between(-3, 10_003), Arbitraries.integers().between(0, 4))
			.as((value, scale) -> BigDecimal.valueOf(value).setScale(scale));
		Arbitrary<BigDecimal> wholeWithExponent = Combinators
			.combine(Arbitraries.bigIntegers().between(BigInteger.ZERO, BigInteger.valueOf(101)),
					Arbitraries.integers().between(-3, 0))
			.as(BigDecimal::new);
		return Arbitraries.oneOf(List.of(Arbitraries.bigDecimals(), anyScale, wholeWithZeros, wholeWithExponent,
				Arbitraries.just(new BigDecimal("1E+400"))))
			.map(DecimalNode::valueOf);
	}

	private Arbitrary<JsonNode> strings() {
		Arbitrary<String> padding = Arbitraries.of("", "", " ", "  ", "\t");
		Arbitrary<String> digits = Arbitraries.oneOf(Arbitraries.integers().between(0, 10_003).map(String::valueOf),
				Arbitraries.strings().numeric().ofMaxLength(7));
		Arbitrary<String> numberLike = Combinators
			.combine(padding, Arbitraries.of("", "", "", "+", "-", "0", "00"), digits,
					Arbitraries.of("", "", "", ".0", ".5", "e2", "x"), padding)
			.as((before, prefix, number, suffix, after) -> before + prefix + number + suffix + after);
		return Arbitraries
			.oneOf(List.of(Arbitraries.strings().all().ofMaxLength(60), Arbitraries.strings().ascii().ofMaxLength(8),
					numberLike, Arbitraries.integers().between(-3, 10_003).map(String::valueOf)))
			.map(StringNode::valueOf);
	}

	private Arbitrary<JsonNode> others() {
		return Arbitraries.of(NullNode.getInstance(), MissingNode.getInstance(), BooleanNode.TRUE, BooleanNode.FALSE,
				BinaryNode.valueOf(new byte[] { 0, 42 }), JsonNodeFactory.instance.pojoNode(Weight.ZERO));
	}

}
