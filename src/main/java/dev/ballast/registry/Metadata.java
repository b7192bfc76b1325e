package dev.ballast.registry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.ballast.web.FieldError;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.Quoted;

/**
 * Free-form string labels of an instance. Weight is never metadata: the key
 * {@code weight} in any case and every key under {@code ballast.} are refused, so that no
 * balancer can be tempted to read a weight from a string.
 *
 * @param entries the labels, sorted by key
 */
public record Metadata(Map<String, String> entries) {

	static final int MAX_ENTRIES = 64;

	static final int MAX_VALUE_LENGTH = 512;

	static final String KEY_PATTERN = "^[A-Za-z0-9._/-]{1,63}$";

	private static final Pattern KEY = Pattern.compile(KEY_PATTERN);

	public static final Metadata EMPTY = new Metadata(Map.of());

	public Metadata {
		entries = Collections.unmodifiableMap(new TreeMap<>(entries));
	}

	/**
	 * @param entries labels as received, possibly {@code null} for none
	 * @param pointer where the labels sit in the request body
	 * @throws InvalidRequestException naming every refused entry
	 */
	public static Metadata of(Map<String, String> entries, String pointer) {
		if (entries == null) {
			return EMPTY;
		}
		List<FieldError> errors = new ArrayList<>();
		if (entries.size() > MAX_ENTRIES) {
			errors.add(new FieldError(pointer,
					"metadata must have at most %d entries; got %d".formatted(MAX_ENTRIES, entries.size())));
		}
		entries.forEach((key, value) -> check(key, value, pointer + "/" + escape(key), errors));
		if (!errors.isEmpty()) {
			throw new InvalidRequestException(errors);
		}
		return new Metadata(entries);
	}

	private static void check(String key, String value, String pointer, List<FieldError> errors) {
		String lower = key.toLowerCase(Locale.ROOT);
		if (lower.equals("weight")) {
			errors.add(new FieldError(pointer,
					"metadata key %s is reserved: weight is the typed field \"weight\", never metadata"
						.formatted(Quoted.quote(key))));
		}
		else if (lower.startsWith("ballast.")) {
			errors.add(new FieldError(pointer,
					"metadata keys under \"ballast.\" are reserved; got %s".formatted(Quoted.quote(key))));
		}
		else if (!KEY.matcher(key).matches()) {
			errors.add(new FieldError(pointer,
					"metadata keys must match %s; got %s".formatted(KEY_PATTERN, Quoted.quote(key))));
		}
		if (value == null) {
			errors.add(new FieldError(pointer, "metadata values must be strings; got null"));
		}
		else if (value.length() > MAX_VALUE_LENGTH) {
			errors.add(new FieldError(pointer, "metadata values must be at most %d characters; got %d"
				.formatted(MAX_VALUE_LENGTH, value.length())));
		}
	}

	private static String escape(String key) {
		return key.replace("~", "~0").replace("/", "~1");
	}

}
