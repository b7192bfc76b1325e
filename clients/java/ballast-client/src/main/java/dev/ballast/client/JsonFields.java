package dev.ballast.client;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fields of one JSON object sent by the registry, read strictly: a value of the wrong
 * JSON type is refused, never coerced, because coercion is how a weight sent as the
 * string {@code "0"} once reached balancers. Refusals name the field, what it must be and
 * what arrived, such as {@code weight must be an integer from 0 to 10000; got the string
 * "0"}.
 */
final class JsonFields {

	private static final int MAX_SHOWN_CHARACTERS = 40;

	private final Map<?, ?> object;

	private JsonFields(Map<?, ?> object) {
		this.object = object;
	}

	/**
	 * @param value a value {@link Json#read(String)} returned
	 * @throws IllegalArgumentException if {@code value} is not a JSON object
	 */
	static JsonFields of(Object value) {
		if (!(value instanceof Map<?, ?> map)) {
			throw new IllegalArgumentException("expected a JSON object; got " + describe(value));
		}
		return new JsonFields(map);
	}

	/** The field's value as read, {@code null} when absent. */
	Object get(String name) {
		return object.get(name);
	}

	String string(String name) {
		if (!(object.get(name) instanceof String value)) {
			throw refusal(name, "a string", object.get(name));
		}
		return value;
	}

	/** An absent field and an explicit {@code null} both mean "none". */
	Optional<String> optionalString(String name) {
		Object value = object.get(name);
		return (value == null || value == Json.NULL) ? Optional.empty() : Optional.of(string(name));
	}

	int integer(String name, int min, int max) {
		return (int) longInteger(name, min, max);
	}

	long longInteger(String name, long min, long max) {
		if (!(object.get(name) instanceof JsonNumber number) || !number.integerWithin(min, max)) {
			throw refusal(name, "an integer from " + min + " to " + max, object.get(name));
		}
		return Long.parseLong(number.text());
	}

	boolean bool(String name) {
		if (!(object.get(name) instanceof Boolean value)) {
			throw refusal(name, "true or false", object.get(name));
		}
		return value;
	}

	Instant instant(String name) {
		String text = string(name);
		try {
			return Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			throw refusal(name, "an ISO-8601 instant such as 2026-11-30T10:00:30Z", text);
		}
	}

	Map<String, String> stringMap(String name) {
		if (!(object.get(name) instanceof Map<?, ?> value)) {
			throw refusal(name, "an object of strings", object.get(name));
		}
		Map<String, String> entries = new LinkedHashMap<>();
		for (Map.Entry<?, ?> entry : value.entrySet()) {
			if (!(entry.getValue() instanceof String string)) {
				throw refusal(name + "." + entry.getKey(), "a string", entry.getValue());
			}
			entries.put((String) entry.getKey(), string);
		}
		return entries;
	}

	List<?> array(String name) {
		if (!(object.get(name) instanceof List<?> value)) {
			throw refusal(name, "an array", object.get(name));
		}
		return value;
	}

	private static IllegalArgumentException refusal(String name, String expectation, Object received) {
		return new IllegalArgumentException(name + " must be " + expectation + "; got " + describe(received));
	}

	/**
	 * Words a received value for a log line, cut short so a huge value cannot flood it.
	 * @param value a value {@link Json#read(String)} returned, or {@code null} for none
	 */
	static String describe(Object value) {
		if (value == null) {
			return "no value";
		}
		if (value instanceof String string) {
			return "the string " + shortened(Json.quote(string));
		}
		if (value instanceof JsonNumber number) {
			return "the number " + shortened(number.text());
		}
		if (value instanceof List) {
			return "an array";
		}
		if (value instanceof Map) {
			return "an object";
		}
		return shortened(value.toString());
	}

	private static String shortened(String text) {
		if (text.codePointCount(0, text.length()) <= MAX_SHOWN_CHARACTERS) {
			return text;
		}
		return text.substring(0, text.offsetByCodePoints(0, MAX_SHOWN_CHARACTERS)) + "…";
	}

}
