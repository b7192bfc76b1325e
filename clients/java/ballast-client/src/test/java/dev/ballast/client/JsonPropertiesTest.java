package dev.ballast.client;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static dev.ballast.client.Properties.charsOf;
import static dev.ballast.client.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;

/**
 * The client's JSON reader against an independent one, Jackson made as strict (duplicate
 * keys and trailing tokens refused): both accept the same texts and read the same values.
 */
class JsonPropertiesTest {

	private static final JsonMapper JACKSON = JsonMapper.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		// Exact decimals, as the client reads them: a double would read 1e400 as
		// Infinity.
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	/** JSON's own characters, and a few that are close to them. */
	private static final String ALPHABET = "{}[]\":,0123456789-+.eE truefalsn\\/u\t\n\u0001xé";

	@Test
	void acceptsAndReadsExactlyWhatAStrictJacksonDoes() {
		qt(3000).forAll(documents()).checkAssert((text) -> assertThat(ours(text)).as(text).isEqualTo(jackson(text)));
	}

	/**
	 * Found by the property: a number beyond a double's range, which Jackson's double
	 * read as Infinity.
	 */
	@Test
	void readsNumbersBeyondADoublesRangeExactlyAsJacksonDoes() {
		for (String text : List.of("1e400", "-1e400", "1e-400", "[1E+400, 2.5e-3]")) {
			assertThat(ours(text)).as(text).isEqualTo(jackson(text)).isNotEqualTo("refused");
		}
	}

	/**
	 * Valid documents, some with one character dropped, some of loose characters only.
	 */
	private static Gen<String> documents() {
		Gen<String> valid = Generate.pick(List.of(0, 1, 2)).flatMap((depth) -> value(depth));
		Gen<String> damaged = valid.zip(integers().between(0, 1000), (text, at) -> text.isEmpty() ? text
				: text.substring(0, at % text.length()) + text.substring(at % text.length() + 1));
		return valid.mix(damaged, 40).mix(charsOf(ALPHABET, 0, 20), 30);
	}

	private static Gen<String> value(int depth) {
		Gen<String> scalars = Generate.pick(List.of("0", "-0", "12", "-7", "100.0", "1e2", "1E+2", "2.5e-3",
				"99999999999999999999", "true", "false", "null", "\"\"", "\"weight\"", "\"a\\\"b\"", "\"\\u0041\"",
				"\"\\ud800\"", "\"\\n\\t\\/\"", "\"é\""));
		if (depth == 0) {
			return scalars;
		}
		Gen<String> inner = value(depth - 1);
		Gen<String> array = lists(inner).map((elements) -> "[" + String.join(", ", elements) + "]");
		Gen<String> object = lists(inner.zip(Generate.pick(List.of("a", "b", "weight", "c")), (v, k) -> k + "\n" + v))
			.map((members) -> {
				List<String> written = new ArrayList<>();
				for (String member : members) {
					int split = member.indexOf('\n');
					written.add("\"" + member.substring(0, split) + "\" : " + member.substring(split + 1));
				}
				return "{" + String.join(",", written) + "}";
			});
		return scalars.mix(array, 40).mix(object, 40);
	}

	private static Gen<List<String>> lists(Gen<String> elements) {
		return integers().between(0, 3).flatMap((size) -> (random) -> {
			List<String> list = new ArrayList<>();
			for (int i = 0; i < size; i++) {
				list.add(elements.generate(random));
			}
			return list;
		});
	}

	private static Object ours(String text) {
		try {
			return comparable(Json.read(text));
		}
		catch (IllegalArgumentException ex) {
			return "refused";
		}
	}

	private static Object jackson(String text) {
		try {
			JsonNode node = JACKSON.readTree(text);
			// Jackson reads a document of white space alone as "missing", not as a value.
			return node.isMissingNode() ? "refused" : comparable(node);
		}
		catch (JacksonException ex) {
			return "refused";
		}
	}

	/**
	 * Jackson's tree in the client's shapes, numbers as "integer 12" or "decimal 1E+2".
	 */
	private static Object comparable(JsonNode node) {
		if (node.isObject()) {
			Map<String, Object> map = new LinkedHashMap<>();
			node.properties().forEach((entry) -> map.put(entry.getKey(), comparable(entry.getValue())));
			return map;
		}
		if (node.isArray()) {
			List<Object> list = new ArrayList<>();
			node.values().forEach((element) -> list.add(comparable(element)));
			return list;
		}
		if (node.isIntegralNumber()) {
			return "integer " + node.bigIntegerValue();
		}
		if (node.isNumber()) {
			return "decimal " + node.decimalValue().stripTrailingZeros();
		}
		if (node.isNull()) {
			return "null";
		}
		return node.isBoolean() ? node.booleanValue() : node.asString();
	}

	private static Object comparable(Object value) {
		if (value instanceof Map<?, ?> map) {
			Map<String, Object> copy = new LinkedHashMap<>();
			map.forEach((key, element) -> copy.put((String) key, comparable(element)));
			return copy;
		}
		if (value instanceof List<?> list) {
			return list.stream().map(JsonPropertiesTest::comparable).toList();
		}
		if (value instanceof JsonNumber number) {
			return number.integral() ? "integer " + new java.math.BigInteger(number.text())
					: "decimal " + new BigDecimal(number.text()).stripTrailingZeros();
		}
		return (value == Json.NULL) ? "null" : value;
	}

}
