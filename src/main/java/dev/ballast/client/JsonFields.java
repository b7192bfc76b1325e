package dev.ballast.client;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import tools.jackson.databind.JsonNode;

/**
 * The fields of one JSON object sent by the registry, read strictly: a value of the wrong
 * JSON type is refused, never coerced, because coercion is how a weight sent as the
 * string {@code "0"} once reached balancers. Refusals name the field, what it must be and
 * what arrived, such as {@code weight must be an integer from 0 to 10000; got the string
 * "0"}.
 */
final class JsonFields {

	private static final int MAX_SHOWN_CHARACTERS = 40;

	private final JsonNode object;

	private JsonFields(JsonNode object) {
		this.object = object;
	}

	/**
	 * @throws IllegalArgumentException if {@code node} is not a JSON object
	 */
	static JsonFields of(JsonNode node) {
		if (node == null || !node.isObject()) {
			throw new IllegalArgumentException("expected a JSON object; got " + describe(node));
		}
		return new JsonFields(node);
	}

	String string(String name) {
		JsonNode value = object.get(name);
		if (value == null || !value.isString()) {
			throw refusal(name, "a string", value);
		}
		return value.asString();
	}

	/** An absent field and an explicit {@code null} both mean "none". */
	Optional<String> optionalString(String name) {
		JsonNode value = object.get(name);
		return (value == null || value.isNull()) ? Optional.empty() : Optional.of(string(name));
	}

	int integer(String name, int min, int max) {
		return (int) longInteger(name, min, max);
	}

	long longInteger(String name, long min, long max) {
		JsonNode value = object.get(name);
		if (value == null || !value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < min
				|| value.longValue() > max) {
			throw refusal(name, "an integer from " + min + " to " + max, value);
		}
		return value.longValue();
	}

	boolean bool(String name) {
		JsonNode value = object.get(name);
		if (value == null || !value.isBoolean()) {
			throw refusal(name, "true or false", value);
		}
		return value.booleanValue();
	}

	Instant instant(String name) {
		String text = string(name);
		try {
			return Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			throw refusal(name, "an ISO-8601 instant such as 2026-11-30T10:00:30Z", object.get(name));
		}
	}

	Map<String, String> stringMap(String name) {
		JsonNode value = object.get(name);
		if (value == null || !value.isObject()) {
			throw refusal(name, "an object of strings", value);
		}
		Map<String, String> entries = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> entry : value.properties()) {
			if (!entry.getValue().isString()) {
				throw refusal(name + "." + entry.getKey(), "a string", entry.getValue());
			}
			entries.put(entry.getKey(), entry.getValue().asString());
		}
		return entries;
	}

	JsonNode array(String name) {
		JsonNode value = object.get(name);
		if (value == null || !value.isArray()) {
			throw refusal(name, "an array", value);
		}
		return value;
	}

	private static IllegalArgumentException refusal(String name, String expectation, JsonNode received) {
		return new IllegalArgumentException(name + " must be " + expectation + "; got " + describe(received));
	}

	/**
	 * Words a received value for a log line, cut short so a huge value cannot flood it.
	 */
	static String describe(JsonNode value) {
		if (value == null || value.isMissingNode()) {
			return "no value";
		}
		return switch (value.getNodeType()) {
			case STRING -> "the string " + shortened(value.toString());
			case NUMBER -> "the number " + shortened(value.toString());
			case ARRAY -> "an array";
			case OBJECT -> "an object";
			default -> shortened(value.toString());
		};
	}

	private static String shortened(String text) {
		if (text.codePointCount(0, text.length()) <= MAX_SHOWN_CHARACTERS) {
			return text;
		}
		return text.substring(0, text.offsetByCodePoints(0, MAX_SHOWN_CHARACTERS)) + "…";
	}

}
