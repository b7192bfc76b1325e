package dev.ballast.web;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.generators.SourceDSL.lists;

/** How a request body is bound, and how each kind of refusal is worded. */
class RequestReaderTest {

	record Sample(
			@NotNull(message = "must be an integer from 1 to 9") @Min(value = 1,
					message = "must be an integer from 1 to 9") @Max(value = 9,
							message = "must be an integer from 1 to 9") Integer count,
			@Expectation("must be an integer from 0 to 10000") JsonNode weight, String label, Map<String, String> tags,
			Level level) {
	}

	/** A value type valid by construction, bound as an {@link IntegerType}. */
	record Level(int value) {

		Level {
			if (value < 1 || value > 5) {
				throw new IllegalArgumentException("level " + value);
			}
		}

	}

	private static final IntegerType<Level> LEVEL = new IntegerType<>(Level.class, 1, 5, 3, Level::new, Level::value);

	private final JsonMapper mapper = strictMapper();

	private final RequestReader reader = new RequestReader(mapper, validator(), List.of(LEVEL));

	private static JsonMapper strictMapper() {
		JsonMapper.Builder builder = JsonMapper.builder();
		for (JsonMapperBuilderCustomizer customizer : List.of(new StrictJson().strictJsonMapper(),
				new IntegerTypes().integerTypesAsJson(List.of(LEVEL)))) {
			customizer.customize(builder);
		}
		return builder.build();
	}

	private static Validator validator() {
		return Validation.buildDefaultValidatorFactory().getValidator();
	}

	private FieldError refusal(String body) {
		JsonNode tree = mapper.readTree(body);
		InvalidRequestException refused = (InvalidRequestException) org.assertj.core.api.Assertions
			.catchThrowable(() -> reader.read(tree, Sample.class));
		assertThat(refused).as(body).isNotNull();
		return refused.errors().getFirst();
	}

	@Test
	void bindsAValidBodyKeepingTheRawWeight() {
		Sample sample = reader.read(mapper.readTree("{\"count\":3,\"weight\":\"7\",\"tags\":{\"a\":\"b\"}}"),
				Sample.class);

		assertThat(sample.count()).isEqualTo(3);
		assertThat(sample.weight().isString()).isTrue();
		assertThat(sample.tags()).containsEntry("a", "b");
	}

	@Test
	void refusesAStringForAnIntegerSayingWhatWasExpectedAndReceived() {
		assertThat(refusal("{\"count\":\"3\"}"))
			.isEqualTo(new FieldError("/count", "count must be an integer from 1 to 9; got the string \"3\""));
	}

	@Test
	void refusesFloatsAndOverflowingNumbersForIntegers() {
		assertThat(refusal("{\"count\":3.0}").detail())
			.isEqualTo("count must be an integer from 1 to 9; got the number 3.0");
		assertThat(refusal("{\"count\":12345678901234567890}").pointer()).isEqualTo("/count");
	}

	@Test
	void refusesOutOfRangeValuesThroughTheirConstraint() {
		assertThat(refusal("{\"count\":10}"))
			.isEqualTo(new FieldError("/count", "count must be an integer from 1 to 9; got the number 10"));
	}

	@Test
	void refusesAMissingRequiredField() {
		assertThat(refusal("{}"))
			.isEqualTo(new FieldError("/count", "count must be an integer from 1 to 9; got no value"));
	}

	@Test
	void refusesExplicitNullsUsingTheFieldsExpectation() {
		assertThat(refusal("{\"count\":1,\"weight\":null}"))
			.isEqualTo(new FieldError("/weight", "weight must be an integer from 0 to 10000; got null"));
		assertThat(refusal("{\"count\":1,\"label\":null}").detail()).isEqualTo("label must be a string; got null");
	}

	@Test
	void bindsAnIntegerTypeInRangeAndRefusesAnythingElseInItsOwnWords() {
		assertThat(reader.read(mapper.readTree("{\"count\":1,\"level\":5}"), Sample.class).level())
			.isEqualTo(new Level(5));
		assertThat(refusal("{\"count\":1,\"level\":6}"))
			.isEqualTo(new FieldError("/level", "level must be an integer from 1 to 5; got the number 6"));
		assertThat(refusal("{\"count\":1,\"level\":\"3\"}"))
			.isEqualTo(new FieldError("/level", "level must be an integer from 1 to 5; got the string \"3\""));
		assertThat(refusal("{\"count\":1,\"level\":3.0}"))
			.isEqualTo(new FieldError("/level", "level must be an integer from 1 to 5; got the number 3.0"));
		assertThat(refusal("{\"count\":1,\"level\":4294967297}"))
			.isEqualTo(new FieldError("/level", "level must be an integer from 1 to 5; got the number 4294967297"));
		assertThat(refusal("{\"count\":1,\"level\":null}"))
			.isEqualTo(new FieldError("/level", "level must be an integer from 1 to 5; got null"));
	}

	/**
	 * A member its type refuses does not hide the others: the answer names every bad
	 * member, as it does when only constraints refuse them.
	 */
	@Test
	void namesEveryBadMemberWhetherItsTypeOrAConstraintRefusesIt() {
		InvalidRequestException refused = (InvalidRequestException) org.assertj.core.api.Assertions
			.catchThrowable(() -> reader
				.read(mapper.readTree("{\"level\":0,\"label\":5,\"count\":10,\"tags\":{\"a\":1}}"), Sample.class));

		assertThat(refused.errors()).containsExactly(
				new FieldError("/count", "count must be an integer from 1 to 9; got the number 10"),
				new FieldError("/label", "label must be a string; got the number 5"),
				new FieldError("/level", "level must be an integer from 1 to 5; got the number 0"),
				new FieldError("/tags/a", "tags values must be strings; got the number 1"));
	}

	@Test
	void aBodyOfManyUnknownMembersIsBoundAtMostOncePerComponent() {
		String members = String.join(",",
				java.util.stream.IntStream.range(0, 500).mapToObj(i -> "\"u" + i + "\":" + i).toList());
		InvalidRequestException refused = (InvalidRequestException) org.assertj.core.api.Assertions
			.catchThrowable(() -> reader.read(mapper.readTree("{" + members + "}"), Sample.class));

		assertThat(refused.errors()).hasSizeLessThanOrEqualTo(Sample.class.getRecordComponents().length + 1)
			.allSatisfy(error -> assertThat(error.detail()).startsWith("unknown field"));
	}

	@Test
	void refusesUnknownFieldsListingTheKnownOnes() {
		FieldError error = refusal("{\"count\":1,\"cuont\":2}");

		assertThat(error.pointer()).isEqualTo("/cuont");
		assertThat(error.detail()).startsWith("unknown field \"cuont\"").contains("count", "weight", "label", "tags");
	}

	@Test
	void refusesNumbersAndBooleansWhereStringsAreExpected() {
		assertThat(refusal("{\"count\":1,\"label\":5}").detail()).isEqualTo("label must be a string; got the number 5");
		assertThat(refusal("{\"count\":1,\"tags\":{\"a\":true}}"))
			.isEqualTo(new FieldError("/tags/a", "tags values must be strings; got true"));
	}

	@Test
	void refusesABodyThatIsNotAnObject() {
		assertThatThrownBy(() -> reader.read(mapper.readTree("[1]"), Sample.class))
			.isInstanceOf(InvalidRequestException.class)
			.hasMessage("the body must be a JSON object; got an array");
	}

	/**
	 * The straight binding (the registration's short way) takes a body only when the
	 * tree's binding accepts it, and binds it to the same record; and it takes every body
	 * the tree's binding accepts unless the letters null appear in it.
	 */
	@Test
	void bindsStraightFromBytesExactlyWhatTheTreeBindingAccepts() {
		qt().forAll(bodies()).checkAssert(body -> {
			Optional<Sample> straight = reader.readValid(body.getBytes(StandardCharsets.UTF_8), Sample.class);
			Sample throughTree;
			try {
				throughTree = reader.read(mapper.readTree(body), Sample.class);
			}
			catch (InvalidRequestException | JacksonException refused) {
				throughTree = null;
			}
			if (straight.isPresent()) {
				assertThat(throughTree).as(body).isEqualTo(straight.get());
			}
			else if (!body.contains("null")) {
				assertThat(throughTree).as(body).isNull();
			}
		});
	}

	@Test
	void leavesABodyWithAnExplicitNullToTheTreeBinding() {
		assertThat(reader.readValid("{\"count\":3,\"label\":null}".getBytes(StandardCharsets.UTF_8), Sample.class))
			.isEmpty();
		assertThat(reader.readValid("{\"count\":3,\"label\":\"x\"}".getBytes(StandardCharsets.UTF_8), Sample.class))
			.contains(new Sample(3, null, "x", null, null));
	}

	/**
	 * Objects of members valid and not, duplicated, unknown or null, and a few
	 * non-objects.
	 */
	private static Gen<String> bodies() {
		Gen<String> member = Generate.pick(List.of("\"count\":3", "\"count\":9", "\"count\":\"3\"", "\"count\":3.0",
				"\"count\":10", "\"count\":0", "\"count\":null", "\"count\":true", "\"count\":1e0", "\"weight\":7",
				"\"weight\":\"7\"", "\"weight\":100.0", "\"weight\":null", "\"weight\":[1]", "\"weight\":{}",
				"\"weight\":-1", "\"label\":\"x\"", "\"label\":\"nullable\"", "\"label\":5", "\"label\":\"\"",
				"\"label\":[]", "\"tags\":{\"a\":\"b\"}", "\"tags\":{\"a\":1}", "\"tags\":{\"a\":null}", "\"tags\":[]",
				"\"tags\":{}", "\"other\":1", "\"Count\":3", "\"level\":1", "\"level\":5", "\"level\":0",
				"\"level\":\"2\"", "\"level\":2.0", "\"level\":4294967297"));
		Gen<String> objects = lists().of(member)
			.ofSizeBetween(0, 5)
			.map(members -> "{" + String.join(",", members) + "}");
		return objects.mix(Generate.pick(List.of("[]", "[{\"count\":3}]", " {\"count\":1} ", "{\"count\":1} x",
				"{\"count\":1}{}", "null", "\"s\"", "3", "{\"count\":1", "\t\n{\"count\":2}")), 15);
	}

}
