package dev.ballast.web;

/**
 * How a refusal shows the text it refuses: in double quotes, backslashes and quotes
 * escaped, cut after {@link #SHOWN} characters (with an ellipsis) so that a huge value
 * cannot make a huge message, and "nothing" for no value at all.
 */
public final class Quoted {

	/** How many characters of a refused value a message shows. */
	public static final int SHOWN = 40;

	private Quoted() {
	}

	/** {@code value} quoted, its first {@link #SHOWN} characters. */
	public static String quote(String value) {
		return quote(value, SHOWN);
	}

	/** {@code value} quoted, its first {@code shown} characters. */
	public static String quote(String value, int shown) {
		if (value == null) {
			return "nothing";
		}
		String kept = value.length() > shown ? value.substring(0, shown) + "…" : value;
		return "\"" + kept.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

}
