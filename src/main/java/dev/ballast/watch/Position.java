package dev.ballast.watch;

import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A point in one service's change history: a revision, and the history of the database it
 * was committed in (see {@code db/migration/V76__history.sql}). A revision alone can name
 * two different changes once a standby that lacked the last commits has been promoted;
 * the pair never does. It is what an event id carries: the revision alone in the
 * database's first history ({@code 42}), the revision and the history's id in hex after a
 * promotion ({@code 42@9f3a01c2}).
 *
 * @param revision the service's revision, 0 or more
 * @param history the id of the history the change at {@code revision} was committed in
 * ({@link #FIRST} for the first, up to 2^32 - 1), or {@link #UNKNOWN} where only the
 * revision is known (an index a blocking query sent)
 */
record Position(long revision, long history) {

	/** The database's first history, the one its schema was created in. */
	static final long FIRST = 0;

	/** A history not known: a position with it is never taken as another's. */
	static final long UNKNOWN = -1;

	private static final HexFormat HEX = HexFormat.of();

	/** A revision, then optionally {@code @} and a history of eight hex digits. */
	static final String SYNTAX = "(\\d{1,19})(?:@([0-9a-f]{8}))?";

	private static final Pattern FORM = Pattern.compile(SYNTAX);

	Position {
		if (revision < 0) {
			throw new IllegalArgumentException("a revision is never negative; got " + revision);
		}
		if (history < UNKNOWN || history > 0xffff_ffffL) {
			throw new IllegalArgumentException("a history id has 32 bits; got " + history);
		}
	}

	/**
	 * The position an event id names (as {@link #id()} writes it), or {@code null} for
	 * anything else.
	 */
	static Position parse(String id) {
		Matcher matcher = FORM.matcher(id);
		return matcher.matches() ? of(matcher, 1) : null;
	}

	/**
	 * The position in a matcher of a pattern that contains {@link #SYNTAX}, whose
	 * revision is group {@code group} and history the next; {@code null} when the
	 * revision is out of range.
	 */
	static Position of(Matcher matcher, int group) {
		long revision;
		try {
			revision = Long.parseLong(matcher.group(group));
		}
		catch (NumberFormatException ex) {
			return null;
		}
		String history = matcher.group(group + 1);
		return new Position(revision, history == null ? FIRST : HEX.fromHexDigitsToLong(history));
	}

	/**
	 * As an event id carries it.
	 * @throws IllegalStateException when its history is unknown: such a position is never
	 * sent, as it would claim the first history
	 */
	String id() {
		if (history == UNKNOWN) {
			throw new IllegalStateException("revision %d of an unknown history has no event id".formatted(revision));
		}
		if (history == FIRST) {
			return Long.toString(revision);
		}
		return revision + "@" + HEX.toHexDigits((int) history);
	}

	/**
	 * Whether this and {@code other} name the same change: the same revision in the same
	 * history. Revision 0, before any change, is the same in every history; an unknown
	 * history is the same as none.
	 */
	boolean sameAs(Position other) {
		return revision == other.revision && (revision == 0 || (history != UNKNOWN && history == other.history));
	}

}
