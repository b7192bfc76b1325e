package dev.ballast.client;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class JsonTest {

	@Test
	void readsEveryKindOfValue() {
		Object value = Json.read(" {\"a\":[1,-2.5e3,true,false,null],\"b\":{\"c\":\"d\\n\\u00e9\\ud83d\\ude00\"}} ");

		assertThat(value)
			.isEqualTo(Map.of("a", List.of(new JsonNumber("1"), new JsonNumber("-2.5e3"), true, false, Json.NULL), "b",
					Map.of("c", "d\néπ".replace("π", "\ud83d\ude00"))));
	}

	@Test
	void refusesADuplicateKeyThatCouldSmuggleASecondWeight() {
		assertThatIllegalArgumentException().isThrownBy(() -> Json.read("{\"weight\":100,\"weight\":\"0\"}"))
			.withMessage("not JSON: expected no duplicate of the member \"weight\" at character 14, found '\"'");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{} {}", "1 2", "{\"a\":1}x", "[1]]", "", " ", "{", "[1,]", "{\"a\":1,}", "01", "-", "1.",
			".5", "1e", "+1", "NaN", "Infinity", "tru", "nul", "'a'", "\"\u0001\"", "\"\\x\"", "\"\\u12\"", "{a:1}",
			"{\"a\" 1}", "[1 2]" })
	void refusesWhatIsNotExactlyOneJsonValue(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> Json.read(text)).withMessageStartingWith("not JSON: ");
	}

	@Test
	void keepsANumberAsItWasWritten() {
		assertThat(((JsonNumber) Json.read("100")).integerWithin(0, 10_000)).isTrue();
		assertThat(((JsonNumber) Json.read("100.0")).integerWithin(0, 10_000)).isFalse();
		assertThat(((JsonNumber) Json.read("1e2")).integerWithin(0, 10_000)).isFalse();
		assertThat(((JsonNumber) Json.read("-0")).integerWithin(0, 10_000)).isTrue();
		assertThat(((JsonNumber) Json.read("99999999999999999999999")).integerWithin(0, Long.MAX_VALUE)).isFalse();
	}

	@Test
	void refusesNestingDeeperThanItsLimit() {
		String deep = "[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1);
		String allowed = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);

		assertThatIllegalArgumentException().isThrownBy(() -> Json.read(deep))
			.withMessageContaining("at most 256 nested arrays and objects");
		assertThat(Json.read(allowed)).isInstanceOf(List.class);
	}

	@Test
	void writesWhatItReadsBack() {
		Map<String, Object> value = new java.util.LinkedHashMap<>();
		value.put("address", "10.0.0.5");
		value.put("port", 8080);
		value.put("weight", 0);
		value.put("metadata", Map.of("note", "a \"quoted\"\\ line\n\u0000\ud800"));
		value.put("tags", List.of("v2", "blue"));
		value.put("force", false);

		String written = Json.write(value);

		assertThat(written).startsWith("{\"address\":\"10.0.0.5\",\"port\":8080,\"weight\":0,");
		assertThat(JsonFields.of(Json.read(written)).stringMap("metadata")).containsEntry("note",
				"a \"quoted\"\\ line\n\u0000\ud800");
	}

}
