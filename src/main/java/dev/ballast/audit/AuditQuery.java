package dev.ballast.audit;

import java.time.Instant;
import java.util.regex.Pattern;

import dev.ballast.web.BadParameterException;
import dev.ballast.web.Quoted;
import dev.ballast.web.Timestamps;

/**
 * What {@code GET /v1/audit} asks for, checked parameter by parameter so that a refusal
 * names the one at fault.
 *
 * @param service only this service's events, or null
 * @param instance only this instance's events, or null
 * @param since only events at or after this time, or null
 * @param before only events older than this id (the cursor of the next page), or null
 * @param limit at most this many events
 */
record AuditQuery(String service, String instance, Instant since, Long before, int limit) {

	static final int DEFAULT_LIMIT = 100;

	static final int MAX_LIMIT = 1000;

	/** The same names the registry accepts (API.md, Names). */
	private static final Pattern SERVICE = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

	private static final Pattern INSTANCE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

	private static final Pattern NUMBER = Pattern.compile("\\d{1,19}");

	static AuditQuery parse(String service, String instance, String since, String before, String limit) {
		return new AuditQuery(name("service", service, SERVICE), name("instance", instance, INSTANCE), since(since),
				before(before), limit(limit));
	}

	private static String name(String parameter, String value, Pattern pattern) {
		if (value != null && !pattern.matcher(value).matches()) {
			throw new BadParameterException(parameter,
					"%s must match %s; got %s".formatted(parameter, pattern.pattern(), Quoted.quote(value)));
		}
		return value;
	}

	private static Instant since(String value) {
		if (value == null) {
			return null;
		}
		return Timestamps.parse(value)
			.orElseThrow(() -> new BadParameterException("since",
					"since must be %s; got %s".formatted(Timestamps.EXPECTED, Quoted.quote(value))));
	}

	private static Long before(String value) {
		if (value == null) {
			return null;
		}
		Long id = NUMBER.matcher(value).matches() ? parseLong(value) : null;
		if (id == null || id < 1) {
			throw new BadParameterException("before",
					"before must be an audit event id, an integer from 1 to %d; got %s".formatted(Long.MAX_VALUE,
							Quoted.quote(value)));
		}
		return id;
	}

	private static int limit(String value) {
		if (value == null) {
			return DEFAULT_LIMIT;
		}
		Long limit = NUMBER.matcher(value).matches() ? parseLong(value) : null;
		if (limit == null || limit < 1 || limit > MAX_LIMIT) {
			throw new BadParameterException("limit",
					"limit must be an integer from 1 to %d; got %s".formatted(MAX_LIMIT, Quoted.quote(value)));
		}
		return limit.intValue();
	}

	private static Long parseLong(String digits) {
		try {
			return Long.parseLong(digits);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
