package dev.ballast.weight;

import tools.jackson.databind.JsonNode;

/**
 * Words a JSON value received from a client for an operator-facing error message, such as
 * {@code port must be an integer from 1 to 65535; got the string "8080"}.
 *
 * <p>
 * Strings and numbers are cut to {@value #MAX_SHOWN_CHARACTERS} characters followed by
 * {@code …}, so that a giant value cannot blow up a message or a log line.
 */
public final class ReceivedValue {

	static final int MAX_SHOWN_CHARACTERS = 40;

	private static final String ELLIPSIS = "…";

	private ReceivedValue() {
	}

	/**
	 * A refusal in the shared wording:
	 * {@code FIELD must be EXPECTATION; got DESCRIPTION}.
	 * @param field the name of the field as the client sent it, such as {@code port}
	 * @param expectation what the field must be, such as
	 * {@code an integer from 1 to 65535}
	 * @param received the value received; a Java {@code null} is worded like JSON null
	 */
	public static String refusal(String field, String expectation, JsonNode received) {
		return field + " must be " + expectation + "; got " + describe(received);
	}

	/**
	 * Describes a received value: {@code the string "0"}, {@code the number 1.5},
	 * {@code null}, {@code true}, {@code an array}, {@code an object}, {@code no value}
	 * for a missing node, {@code binary data} or {@code an embedded Java object}. A Java
	 * {@code null} is worded like JSON null. Strings are quoted and escaped the way JSON
	 * writes them, and every control or invisible formatting character is shown as a
	 * {@code \}{@code uXXXX} escape so the message reads the same in any terminal.
	 */
	public static String describe(JsonNode value) {
		if (value == null) {
			return "null";
		}
		return switch (value.getNodeType()) {
			case NULL -> "null";
			case MISSING -> "no value";
			case BOOLEAN -> String.valueOf(value.booleanValue());
			case NUMBER -> "the number " + shortened(value.numberValue().toString());
			case STRING -> "the string " + quoted(value.stringValue());
			case ARRAY -> "an array";
			case OBJECT -> "an object";
			case BINARY -> "binary data";
			case POJO -> "an embedded Java object";
		};
	}

	private static String shortened(String text) {
		// Counted in code points so that a surrogate pair is never cut in half.
		if (text.codePointCount(0, text.length()) <= MAX_SHOWN_CHARACTERS) {
			return text;
		}
		return text.substring(0, text.offsetByCodePoints(0, MAX_SHOWN_CHARACTERS)) + ELLIPSIS;
	}

	private static String quoted(String text) {
		String shown = shortened(text);
		boolean cut = shown.length() != text.length();
		String kept = cut ? shown.substring(0, shown.length() - ELLIPSIS.length()) : shown;
		return '"' + escaped(kept) + (cut ? ELLIPSIS : "") + '"';
	}

	private static String escaped(String text) {
		StringBuilder out = new StringBuilder(text.length() + 2);
		text.codePoints().forEach(codePoint -> appendEscaped(out, codePoint));
		return out.toString();
	}

	private static void appendEscaped(StringBuilder out, int codePoint) {
		switch (codePoint) {
			case '"' -> out.append("\\\"");
			case '\\' -> out.append("\\\\");
			case '\n' -> out.append("\\n");
			case '\r' -> out.append("\\r");
			case '\t' -> out.append("\\t");
			case '\b' -> out.append("\\b");
			case '\f' -> out.append("\\f");
			default -> {
				if (isInvisible(codePoint)) {
					out.append("\\u%04x".formatted(codePoint));
				}
				else {
					out.appendCodePoint(codePoint);
				}
			}
		}
	}

	// Bidi overrides, zero-width characters, line separators and lone surrogates can make
	// a message read differently from what was sent, so they are shown escaped like
	// controls.
	private static boolean isInvisible(int codePoint) {
		return switch (Character.getType(codePoint)) {
			case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
					Character.SURROGATE ->
				true;
			default -> false;
		};
	}

}
