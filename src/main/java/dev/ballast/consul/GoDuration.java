package dev.ballast.consul;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as Consul reads them (Go's {@code time.ParseDuration}): a sequence of decimal
 * numbers with units {@code ns}, {@code us}, {@code µs}, {@code ms}, {@code s},
 * {@code m}, {@code h}, such as {@code 30s}, {@code 1m30s}, {@code 1.5h}; {@code 0} alone
 * is zero. Consul's {@code ?wait} also takes a bare number of seconds.
 */
final class GoDuration {

	private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:ns|us|µs|ms|s|m|h)");

	private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

	/** Far beyond any wait or TTL Ballast takes, and well inside a {@link Duration}. */
	private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Duration.ofDays(3650).toNanos());

	private GoDuration() {
	}

	/** The duration, or null when {@code text} is not one. */
	static Duration parse(String text) {
		if (text == null || text.isEmpty() || text.length() > 64) {
			return null;
		}
		if (text.equals("0")) {
			return Duration.ZERO;
		}
		if (!Pattern.compile("(?:" + WHOLE.pattern() + ")+").matcher(text).matches()) {
			return null;
		}
		BigDecimal nanos = BigDecimal.ZERO;
		Matcher part = PART.matcher(text);
		while (part.find()) {
			BigDecimal amount = new BigDecimal(part.group(1).endsWith(".") ? part.group(1) + "0"
					: part.group(1).startsWith(".") ? "0" + part.group(1) : part.group(1));
			nanos = nanos.add(amount.multiply(BigDecimal.valueOf(unitNanos(part.group(2)))));
			if (nanos.compareTo(MAX_NANOS) > 0) {
				return null;
			}
		}
		return Duration.ofNanos(nanos.longValue());
	}

	private static long unitNanos(String unit) {
		return switch (unit) {
			case "ns" -> 1L;
			case "us", "µs" -> 1_000L;
			case "ms" -> 1_000_000L;
			case "s" -> 1_000_000_000L;
			case "m" -> 60_000_000_000L;
			default -> 3_600_000_000_000L;
		};
	}

}
