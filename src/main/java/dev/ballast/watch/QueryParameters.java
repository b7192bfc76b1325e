package dev.ballast.watch;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ballast.web.BadParameterException;
import dev.ballast.web.Quoted;

/**
 * The syntax of the watch parameters: a blocking query's {@code index} and {@code wait},
 * a subscriber's name, and the {@code Last-Event-ID} a stream resumes from.
 */
final class QueryParameters {

	private static final Pattern INDEX = Pattern.compile("\\d{1,19}");

	private static final Pattern WAIT = Pattern.compile("(\\d{1,9})(ms|s|m)?");

	static final String SUBSCRIBER_PATTERN = "^[A-Za-z0-9._:-]{1,128}$";

	static final Pattern SUBSCRIBER = Pattern.compile(SUBSCRIBER_PATTERN);

	private static final Pattern POSITION = Pattern
		.compile("([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?):" + Position.SYNTAX);

	private QueryParameters() {
	}

	/** {@code ?index=}: the revision the client has; {@code null} when absent. */
	static Long index(String value) {
		if (value == null) {
			return null;
		}
		Long index = revision(unquoted(value));
		if (index == null) {
			throw new BadParameterException("index",
					"index must be a revision, an integer from 0 to %d (an ETag such as \"14\" is accepted too); got %s"
						.formatted(Long.MAX_VALUE, Quoted.quote(value)));
		}
		return index;
	}

	/**
	 * The index as an ETag carries it, as users copy it: one pair of surrounding double
	 * quotes, and a leading {@code W/}, are not part of the revision.
	 */
	private static String unquoted(String value) {
		String index = value.startsWith("W/") ? value.substring(2) : value;
		if (index.length() >= 2 && index.startsWith("\"") && index.endsWith("\"")) {
			index = index.substring(1, index.length() - 1);
		}
		return index;
	}

	/**
	 * {@code ?wait=}: {@code 30s}, {@code 5m}, {@code 1500ms}, or plain seconds; at most
	 * {@code max} (a longer wait is shortened to it, as Consul does).
	 */
	static Duration wait(String value, Duration whenAbsent, Duration max) {
		if (value == null) {
			return whenAbsent;
		}
		Matcher matcher = WAIT.matcher(value);
		if (!matcher.matches()) {
			throw new BadParameterException("wait",
					"wait must be a duration such as 30s, 5m or 1500ms; got %s".formatted(Quoted.quote(value)));
		}
		long amount = Long.parseLong(matcher.group(1));
		String unit = matcher.group(2) == null ? "s" : matcher.group(2);
		Duration wait = switch (unit) {
			case "ms" -> Duration.ofMillis(amount);
			case "m" -> Duration.ofMinutes(amount);
			default -> Duration.ofSeconds(amount);
		};
		return wait.compareTo(max) > 0 ? max : wait;
	}

	/** {@code ?subscriber=}: {@code null} when absent. */
	static String subscriber(String value) {
		if (value != null && !SUBSCRIBER.matcher(value).matches()) {
			throw new BadParameterException("subscriber",
					"subscriber must match %s; got %s".formatted(SUBSCRIBER_PATTERN, Quoted.quote(value)));
		}
		return value;
	}

	/**
	 * The position a single-service stream resumes from: its last event id is the
	 * position ({@link Position#id()}). Anything else (absent, garbage, an id of another
	 * stream) means starting over from a snapshot.
	 */
	static Map<String, Position> resumeOne(String service, String lastEventId) {
		Position position = lastEventId == null ? null : Position.parse(lastEventId.strip());
		return position == null ? Map.of() : Map.of(service, position);
	}

	/**
	 * The positions a multiplexed stream resumes from: its last event id lists
	 * {@code service:position} pairs, comma-separated. Pairs that do not parse are left
	 * out, and those services start over from a snapshot.
	 */
	static Map<String, Position> resumeMany(String lastEventId) {
		Map<String, Position> positions = new LinkedHashMap<>();
		if (lastEventId == null) {
			return positions;
		}
		for (String pair : lastEventId.split(",", 256)) {
			Matcher matcher = POSITION.matcher(pair.strip());
			Position position = matcher.matches() ? Position.of(matcher, 2) : null;
			if (position != null) {
				positions.put(matcher.group(1), position);
			}
		}
		return positions;
	}

	/** A revision: a decimal non-negative long; null for anything else. */
	private static Long revision(String value) {
		if (!INDEX.matcher(value).matches()) {
			return null;
		}
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
