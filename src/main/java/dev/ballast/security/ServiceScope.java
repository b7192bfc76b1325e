package dev.ballast.security;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The services a registrant may register in: service names or patterns where {@code *}
 * stands for any run of characters ({@code payments-*}, {@code *-canary}, {@code *}).
 *
 * @param patterns at least one
 */
record ServiceScope(List<String> patterns) {

	static final String SYNTAX = "^[a-z0-9*-]{1,63}$";

	private static final Pattern VALID = Pattern.compile(SYNTAX);

	ServiceScope {
		patterns = List.copyOf(patterns);
		if (patterns.isEmpty()) {
			throw new IllegalArgumentException("must name at least one service or pattern");
		}
		for (String pattern : patterns) {
			if (!VALID.matcher(pattern).matches()) {
				throw new IllegalArgumentException(
						"a pattern is a service name in which * stands for any characters (%s); got \"%s\""
							.formatted(SYNTAX, pattern));
			}
		}
	}

	boolean covers(String service) {
		for (String pattern : patterns) {
			if (glob(pattern, service)) {
				return true;
			}
		}
		return false;
	}

	/** Plain glob with {@code *} only: linear, no regular expression built from input. */
	private static boolean glob(String pattern, String name) {
		int p = 0;
		int n = 0;
		int star = -1;
		int resume = 0;
		while (n < name.length()) {
			if (p < pattern.length() && pattern.charAt(p) != '*' && pattern.charAt(p) == name.charAt(n)) {
				p++;
				n++;
			}
			else if (p < pattern.length() && pattern.charAt(p) == '*') {
				star = p++;
				resume = n;
			}
			else if (star >= 0) {
				p = star + 1;
				n = ++resume;
			}
			else {
				return false;
			}
		}
		while (p < pattern.length() && pattern.charAt(p) == '*') {
			p++;
		}
		return p == pattern.length();
	}

}
