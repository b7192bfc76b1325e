package dev.ballast.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client's own JSON (RFC 8259), so that it depends on no library and never on the
 * version of one an application already has. Reading is strict where a lenient reader
 * could let a wrong weight through: a duplicate key, trailing text after the value, a
 * number's exact spelling (an integer is only written as one, {@code 100.0} and
 * {@code 1e2} are not integers) are all kept or refused, never guessed at.
 *
 * <p>
 * Values read: an object is a {@code Map<String, Object>} in document order, an array a
 * {@code List<Object>}, a string a {@link String}, a number a {@link JsonNumber}, true
 * and false a {@link Boolean}, and null {@link #NULL}; all of them unmodifiable.
 */
final class Json {

	/** JSON's {@code null}, so that a map tells "null" from "absent". */
	static final Object NULL = new Object() {

		@Override
		public String toString() {
			return "null";
		}

	};

	/** Deeper documents are refused, so that a hostile one cannot exhaust the stack. */
	static final int MAX_DEPTH = 256;

	private final String text;

	private int at;

	private Json(String text) {
		this.text = text;
	}

	/**
	 * Reads one JSON value, with nothing but white space around it.
	 * @throws IllegalArgumentException saying what was expected where, if {@code text} is
	 * not exactly one JSON value
	 */
	static Object read(String text) {
		Json reader = new Json(text);
		Object value = reader.value(0);
		reader.skipSpace();
		if (reader.at < text.length()) {
			throw reader.refusal("the end of the document");
		}
		return value;
	}

	private Object value(int depth) {
		skipSpace();
		if (at >= text.length()) {
			throw refusal("a value");
		}
		char c = text.charAt(at);
		return switch (c) {
			case '{' -> object(depth + 1);
			case '[' -> array(depth + 1);
			case '"' -> string();
			case 't' -> literal("true", Boolean.TRUE);
			case 'f' -> literal("false", Boolean.FALSE);
			case 'n' -> literal("null", NULL);
			default -> {
				if (c == '-' || (c >= '0' && c <= '9')) {
					yield number();
				}
				throw refusal("a value");
			}
		};
	}

	private Map<String, Object> object(int depth) {
		requireDepth(depth);
		at++;
		Map<String, Object> members = new LinkedHashMap<>();
		skipSpace();
		if (peek() == '}') {
			at++;
			return Collections.unmodifiableMap(members);
		}
		while (true) {
			skipSpace();
			if (peek() != '"') {
				throw refusal("a member name");
			}
			int nameAt = at;
			String name = string();
			skipSpace();
			expect(':');
			Object value = value(depth);
			if (members.putIfAbsent(name, value) != null) {
				// A second value for a key could smuggle a second weight past a reader
				// that
				// looks only at the first (or the last).
				at = nameAt;
				throw refusal("no duplicate of the member " + quote(name));
			}
			skipSpace();
			if (peek() == ',') {
				at++;
				continue;
			}
			expect('}');
			return Collections.unmodifiableMap(members);
		}
	}

	private List<Object> array(int depth) {
		requireDepth(depth);
		at++;
		List<Object> elements = new ArrayList<>();
		skipSpace();
		if (peek() == ']') {
			at++;
			return Collections.unmodifiableList(elements);
		}
		while (true) {
			elements.add(value(depth));
			skipSpace();
			if (peek() == ',') {
				at++;
				continue;
			}
			expect(']');
			return Collections.unmodifiableList(elements);
		}
	}

	private String string() {
		at++;
		StringBuilder out = new StringBuilder();
		while (true) {
			if (at >= text.length()) {
				throw refusal("the end of a string");
			}
			char c = text.charAt(at++);
			if (c == '"') {
				return out.toString();
			}
			if (c < 0x20) {
				at--;
				throw refusal("no control character inside a string");
			}
			out.append((c == '\\') ? escaped() : c);
		}
	}

	private char escaped() {
		if (at >= text.length()) {
			throw refusal("an escape");
		}
		char c = text.charAt(at++);
		return switch (c) {
			case '"', '\\', '/' -> c;
			case 'b' -> '\b';
			case 'f' -> '\f';
			case 'n' -> '\n';
			case 'r' -> '\r';
			case 't' -> '\t';
			case 'u' -> unicodeEscape();
			default -> {
				at--;
				throw refusal("an escape (one of \" \\ / b f n r t u)");
			}
		};
	}

	private char unicodeEscape() {
		if (at + 4 > text.length()) {
			throw refusal("four hexadecimal digits");
		}
		int code = 0;
		for (int i = 0; i < 4; i++) {
			int digit = Character.digit(text.charAt(at), 16);
			if (digit < 0) {
				throw refusal("four hexadecimal digits");
			}
			code = code * 16 + digit;
			at++;
		}
		return (char) code;
	}

	private JsonNumber number() {
		int start = at;
		if (peek() == '-') {
			at++;
		}
		if (peek() == '0') {
			at++;
		}
		else if (!digits()) {
			throw refusal("a digit");
		}
		if (peek() == '.') {
			at++;
			if (!digits()) {
				throw refusal("a digit after the decimal point");
			}
		}
		if (peek() == 'e' || peek() == 'E') {
			at++;
			if (peek() == '+' || peek() == '-') {
				at++;
			}
			if (!digits()) {
				throw refusal("a digit in the exponent");
			}
		}
		return new JsonNumber(text.substring(start, at));
	}

	private boolean digits() {
		int start = at;
		while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
			at++;
		}
		return at > start;
	}

	private Object literal(String word, Object value) {
		if (!text.startsWith(word, at)) {
			throw refusal("a value");
		}
		at += word.length();
		return value;
	}

	private void expect(char c) {
		if (peek() != c) {
			throw refusal("'" + c + "'");
		}
		at++;
	}

	/** The next character, or U+FFFF at the end (never meaningful in JSON's syntax). */
	private char peek() {
		return (at < text.length()) ? text.charAt(at) : '\uFFFF';
	}

	private void skipSpace() {
		while (at < text.length()) {
			char c = text.charAt(at);
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				return;
			}
			at++;
		}
	}

	private void requireDepth(int depth) {
		if (depth > MAX_DEPTH) {
			throw refusal("at most " + MAX_DEPTH + " nested arrays and objects");
		}
	}

	private IllegalArgumentException refusal(String expected) {
		String found = (at >= text.length()) ? "the end" : "'" + text.charAt(at) + "'";
		return new IllegalArgumentException(
				"not JSON: expected " + expected + " at character " + at + ", found " + found);
	}

	/**
	 * {@code text} as a JSON string, quotes included, every control character escaped.
	 */
	static String quote(String text) {
		StringBuilder out = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

	/**
	 * Writes a value made of maps with string keys, lists, strings, numbers (written as
	 * Java writes them: give integers as {@code Integer} or {@code Long}), booleans and
	 * {@link #NULL}; a map's entries in its own order.
	 * @throws IllegalArgumentException for any other kind of value
	 */
	static String write(Object value) {
		StringBuilder out = new StringBuilder();
		write(value, out);
		return out.toString();
	}

	private static void write(Object value, StringBuilder out) {
		if (value instanceof String string) {
			out.append(quote(string));
		}
		else if (value instanceof Integer || value instanceof Long || value instanceof Boolean || value == NULL) {
			out.append(value);
		}
		else if (value instanceof Map<?, ?> map) {
			out.append('{');
			String separator = "";
			for (Map.Entry<?, ?> entry : map.entrySet()) {
				out.append(separator).append(quote((String) entry.getKey())).append(':');
				write(entry.getValue(), out);
				separator = ",";
			}
			out.append('}');
		}
		else if (value instanceof List<?> list) {
			out.append('[');
			String separator = "";
			for (Object element : list) {
				out.append(separator);
				write(element, out);
				separator = ",";
			}
			out.append(']');
		}
		else {
			throw new IllegalArgumentException("cannot write " + value + " as JSON");
		}
	}

}
