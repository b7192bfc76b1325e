package dev.ballast.weight;

import dev.ballast.weight.WeightReading.Exact;
import dev.ballast.weight.WeightReading.Normalized;
import dev.ballast.weight.WeightReading.Refused;
import java.math.BigDecimal;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.StringNode;

/**
 * Turns an untrusted JSON value into a {@link Weight} under a {@link WeightPolicy}.
 *
 * <p>
 * Reading never throws for any node Jackson builds: whatever arrives becomes a
 * {@link WeightReading}, and a refusal says what was expected and what was received.
 */
public final class WeightReader {

	private static final String EXPECTATION = "an integer from " + Weight.MIN + " to " + Weight.MAX;

	private static final String CANONICAL_EXPECTATION = "a canonical decimal from \"" + Weight.MIN + "\" to \""
			+ Weight.MAX + "\"";

	private static final BigDecimal LOWEST = BigDecimal.valueOf(Weight.MIN);

	private static final BigDecimal HIGHEST = BigDecimal.valueOf(Weight.MAX);

	// Canonical means one spelling per number: no sign, no leading zeros, no exponent.
	// The digit count bound keeps a huge digit string from being parsed at all.
	private static final Pattern CANONICAL_DECIMAL = Pattern.compile("0|[1-9][0-9]{0,4}");

	private WeightReader() {
	}

	/**
	 * Reads the weight in {@code value}.
	 * @param field the field name used in refusals, such as {@code weight} or
	 * {@code defaultWeight}
	 * @param value the received value; a Java {@code null} is read like JSON null
	 * @param policy which JSON shapes are accepted
	 */
	public static WeightReading read(String field, JsonNode value, WeightPolicy policy) {
		Objects.requireNonNull(field, "field");
		Objects.requireNonNull(policy, "policy");
		JsonNode received = value == null ? NullNode.getInstance() : value;
		if (received.isIntegralNumber()) {
			return whole(new BigDecimal(received.bigIntegerValue())).<WeightReading>map(Exact::new)
				.orElseGet(() -> refused(field, received));
		}
		return convertible(received).map(weight -> converted(field, received, weight, policy))
			.orElseGet(() -> refused(field, received));
	}

	/**
	 * Reads a weight that must be a JSON integer whatever a service's policy, such as
	 * Consul's {@code Weights.Passing}: {@link Exact} or {@link Refused}, never
	 * converted.
	 * @param field the field name used in refusals
	 * @param value the received value; a Java {@code null} is read like JSON null
	 */
	public static WeightReading readInteger(String field, JsonNode value) {
		Objects.requireNonNull(field, "field");
		JsonNode received = value == null ? NullNode.getInstance() : value;
		if (!received.isIntegralNumber()) {
			return refused(field, received);
		}
		return whole(new BigDecimal(received.bigIntegerValue())).<WeightReading>map(Exact::new)
			.orElseGet(() -> refused(field, received));
	}

	/**
	 * Reads a weight written as text, where only its canonical decimal is a weight
	 * ({@code "0"} to {@code "10000"}: no sign, leading zero, space, fraction or
	 * exponent), as in Consul's {@code Meta.weight}, the one field in which a weight
	 * travels as a string: {@link Exact} or {@link Refused}.
	 * @param field the field name used in refusals
	 * @param text the received text
	 */
	public static WeightReading readCanonicalText(String field, String text) {
		Objects.requireNonNull(field, "field");
		Objects.requireNonNull(text, "text");
		Optional<Weight> weight = CANONICAL_DECIMAL.matcher(text).matches() ? whole(new BigDecimal(text))
				: Optional.empty();
		return weight.<WeightReading>map(Exact::new)
			.orElseGet(
					() -> new Refused(ReceivedValue.refusal(field, CANONICAL_EXPECTATION, StringNode.valueOf(text))));
	}

	private static WeightReading converted(String field, JsonNode received, Weight weight, WeightPolicy policy) {
		return switch (policy) {
			case NORMALIZE -> new Normalized(weight, ReceivedValue.describe(received));
			case STRICT -> new Refused(ReceivedValue.refusal(field, EXPECTATION, received)
					+ " (the service's weight policy is STRICT; send the JSON integer " + weight.value() + ")");
		};
	}

	private static Refused refused(String field, JsonNode received) {
		return new Refused(ReceivedValue.refusal(field, EXPECTATION, received));
	}

	private static Optional<Weight> convertible(JsonNode node) {
		if (node.isString()) {
			return fromCanonicalDecimal(node.stringValue());
		}
		if (node.isBigDecimal()) {
			return whole(node.decimalValue());
		}
		if (node.isFloatingPointNumber()) {
			double number = node.doubleValue();
			return Double.isFinite(number) ? whole(new BigDecimal(number)) : Optional.empty();
		}
		return Optional.empty();
	}

	private static Optional<Weight> fromCanonicalDecimal(String text) {
		String digits = withoutSurroundingSpaces(text);
		if (!CANONICAL_DECIMAL.matcher(digits).matches()) {
			return Optional.empty();
		}
		return whole(new BigDecimal(digits));
	}

	private static String withoutSurroundingSpaces(String text) {
		int start = 0;
		int end = text.length();
		while (start < end && text.charAt(start) == ' ') {
			start++;
		}
		while (end > start && text.charAt(end - 1) == ' ') {
			end--;
		}
		return text.substring(start, end);
	}

	private static Optional<Weight> whole(BigDecimal number) {
		// Range first, so that zeros are only ever stripped from a number below 10001.
		boolean weight = number.compareTo(LOWEST) >= 0 && number.compareTo(HIGHEST) <= 0
				&& number.stripTrailingZeros().scale() <= 0;
		return weight ? Optional.of(Weight.of(number.intValue())) : Optional.empty();
	}

}
