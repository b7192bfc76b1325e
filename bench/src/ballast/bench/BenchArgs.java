package ballast.bench;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Command-line options of the bench programs: {@code --name value} pairs against a table of
 * defaults. An unknown option, a missing value or a malformed number prints the usage and
 * exits with status 2; {@code --help} prints it and exits 0.
 */
final class BenchArgs {

	private final Map<String, String> values;

	private final String usage;

	private BenchArgs(Map<String, String> values, String usage) {
		this.values = values;
		this.usage = usage;
	}

	/** Option names and their defaults, in the order the usage lists them: name, value, name, value... */
	static Map<String, String> defaults(String... pairs) {
		Map<String, String> map = new LinkedHashMap<>();
		for (int i = 0; i < pairs.length; i += 2) {
			map.put(pairs[i], pairs[i + 1]);
		}
		return map;
	}

	/**
	 * The Authorization header value for Ballast, from BALLAST_TOKEN: the environment rather
	 * than an option, which ps would show. Exits with status 2 when it is missing.
	 */
	static String authorization() {
		String token = System.getenv("BALLAST_TOKEN");
		if (token == null || !token.matches("[!-~]{1,4096}")) {
			System.err.println("error: BALLAST_TOKEN must hold the bearer token to send (printable ASCII, no spaces)");
			System.exit(2);
		}
		return "Bearer " + token;
	}

	/** Parses args[from..] against the defaults (option → default value, in usage order). */
	static BenchArgs parse(String[] args, int from, Map<String, String> defaults, String usage) {
		Map<String, String> values = new LinkedHashMap<>(defaults);
		BenchArgs parsed = new BenchArgs(values, usage);
		for (int i = from; i < args.length; i++) {
			if (args[i].equals("--help") || args[i].equals("-h")) {
				System.out.println(parsed.usageText());
				System.exit(0);
			}
			if (!values.containsKey(args[i]) || i + 1 >= args.length) {
				parsed.fail("unknown option or missing value: " + args[i]);
			}
			values.put(args[i], args[++i]);
		}
		return parsed;
	}

	String get(String name) {
		String value = values.get(name);
		if (value == null) {
			throw new IllegalArgumentException("no option " + name);
		}
		return value;
	}

	int positive(String name) {
		int value = integer(name);
		if (value <= 0) {
			fail(name + " must be a positive integer; got " + get(name));
		}
		return value;
	}

	int nonNegative(String name) {
		int value = integer(name);
		if (value < 0) {
			fail(name + " must be 0 or more; got " + get(name));
		}
		return value;
	}

	/** An http://host:port base URL without a trailing slash. */
	URI url(String name) {
		String raw = get(name).replaceAll("/+$", "");
		if (!raw.matches("http://[^/]+:\\d+")) {
			fail(name + " must be http://host:port; got " + raw);
		}
		return URI.create(raw);
	}

	/** One of the given words. */
	String oneOf(String name, String... choices) {
		String value = get(name);
		for (String choice : choices) {
			if (choice.equals(value)) {
				return value;
			}
		}
		fail(name + " must be one of " + String.join(", ", choices) + "; got " + value);
		return value;
	}

	/** Comma-separated process ids; empty for none. */
	long[] pids(String name) {
		String raw = get(name).trim();
		if (raw.isEmpty()) {
			return new long[0];
		}
		String[] parts = raw.split(",");
		long[] pids = new long[parts.length];
		for (int i = 0; i < parts.length; i++) {
			try {
				pids[i] = Long.parseLong(parts[i].trim());
			}
			catch (NumberFormatException ex) {
				fail(name + " must be comma-separated process ids; got " + raw);
			}
		}
		return pids;
	}

	long positiveLong(String name) {
		try {
			long value = Long.parseLong(get(name));
			if (value <= 0) {
				fail(name + " must be a positive integer; got " + get(name));
			}
			return value;
		}
		catch (NumberFormatException ex) {
			fail(name + " must be an integer; got " + get(name));
			return 0;
		}
	}

	long longValue(String name) {
		try {
			return Long.parseLong(get(name));
		}
		catch (NumberFormatException ex) {
			fail(name + " must be an integer; got " + get(name));
			return 0;
		}
	}

	double number(String name) {
		try {
			return Double.parseDouble(get(name));
		}
		catch (NumberFormatException ex) {
			fail(name + " must be a number; got " + get(name));
			return 0;
		}
	}

	/** A value that must match regex, described as what. */
	String matching(String name, String regex, String what) {
		String value = get(name);
		if (!value.matches(regex)) {
			fail(name + " must be " + what + "; got " + value);
		}
		return value;
	}

	private int integer(String name) {
		try {
			return Integer.parseInt(get(name));
		}
		catch (NumberFormatException ex) {
			fail(name + " must be an integer; got " + get(name));
			return 0;
		}
	}

	void fail(String message) {
		System.err.println("error: " + message);
		System.err.println(usageText());
		System.exit(2);
	}

	/** The usage text, then the options it does not describe itself, with their defaults. */
	private String usageText() {
		StringBuilder text = new StringBuilder(usage.strip());
		boolean first = true;
		for (Map.Entry<String, String> option : values.entrySet()) {
			if (!java.util.regex.Pattern.compile("(?m)^\\s+" + option.getKey() + "\\b").matcher(usage).find()) {
				text.append(first ? "\n\noptions (default):" : "")
					.append("\n  ")
					.append(option.getKey())
					.append(" (")
					.append(option.getValue())
					.append(")");
				first = false;
			}
		}
		return text.toString();
	}

}
