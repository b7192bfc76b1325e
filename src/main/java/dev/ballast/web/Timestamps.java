package dev.ballast.web;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.deser.std.StdScalarDeserializer;

/**
 * The border's one rule for timestamps, for every body field (the application's JSON
 * mapper reads every {@link Instant} with {@link #DESERIALIZER}) and every query
 * parameter ({@link #parse}): RFC 3339, whose years have four digits, from
 * {@value #EARLIEST_TEXT} to {@value #LATEST_TEXT}. {@link Instant} itself reaches year
 * one billion, PostgreSQL's {@code timestamptz} only 4713 BC to 294276 AD, and epoch
 * milliseconds overflow a {@code long} long before Instant's end; a timestamp outside
 * these four-digit years was answered 500 by whichever of them it met first.
 */
public final class Timestamps {

	static final String EARLIEST_TEXT = "0001-01-01T00:00:00Z";

	static final String LATEST_TEXT = "9999-12-31T23:59:59.999999Z";

	private static final Instant EARLIEST = Instant.parse(EARLIEST_TEXT);

	private static final Instant LATEST = Instant.parse(LATEST_TEXT);

	/** What a timestamp must be, to end "FIELD must be ...". */
	public static final String EXPECTED = "an RFC 3339 timestamp from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, "
			+ "such as 2026-12-01T12:00:00Z";

	/** Reads a body's timestamps, refusing what {@link #parse} refuses. */
	static final StdScalarDeserializer<Instant> DESERIALIZER = new StdScalarDeserializer<>(Instant.class) {
		@Override
		public Instant deserialize(JsonParser parser, DeserializationContext context) {
			if (!parser.hasToken(JsonToken.VALUE_STRING)) {
				return (Instant) context.handleUnexpectedToken(Instant.class, parser);
			}
			String text = parser.getString();
			return parse(text)
				.orElseThrow(() -> context.weirdStringException(text, Instant.class, "must be " + EXPECTED));
		}
	};

	private Timestamps() {
	}

	/**
	 * @param text a timestamp as received
	 * @return the instant, or empty when {@code text} is no RFC 3339 timestamp within the
	 * four-digit years
	 */
	public static Optional<Instant> parse(String text) {
		Instant instant;
		try {
			instant = Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			return Optional.empty();
		}
		return instant.isBefore(EARLIEST) || instant.isAfter(LATEST) ? Optional.empty() : Optional.of(instant);
	}

}
