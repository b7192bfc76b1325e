package dev.ballast.support;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * The one entry point to QuickTheories for Ballast's property tests (see
 * {@code docs/testing.md}).
 * <p>
 * Each run draws a fresh seed, and a falsified property's failure message ends with
 * {@code Seed was N} after its shrunk counterexample. {@code -Dballast.seed=N} (or the
 * environment variable {@code BALLAST_SEED}) fixes the seed, so that
 * {@code ./mvnw test -Dtest=SomeTest -Dballast.seed=N} replays the failing run.
 */
public final class Properties {

	/** The system property that fixes the seed; surefire passes it on from Maven. */
	public static final String SEED_PROPERTY = "ballast.seed";

	/** The environment variable read when the system property is not set. */
	public static final String SEED_VARIABLE = "BALLAST_SEED";

	/** Tries of a property that does not ask for more or fewer. */
	public static final int DEFAULT_TRIES = 1000;

	private Properties() {
	}

	/**
	 * A theory checked with {@value #DEFAULT_TRIES} tries.
	 * @return the theory to call {@code forAll} on
	 */
	public static QuickTheory qt() {
		return qt(DEFAULT_TRIES);
	}

	/**
	 * A theory checked with the given number of tries, on the fixed seed when one is set.
	 * @param tries the number of examples to generate when none fails
	 * @return the theory to call {@code forAll} on
	 */
	public static QuickTheory qt(int tries) {
		QuickTheory theory = QuickTheory.qt().withExamples(tries);
		Optional<Long> seed = fixedSeed();
		return seed.isPresent() ? theory.withFixedSeed(seed.get()) : theory;
	}

	/**
	 * The seed set with {@code -Dballast.seed} or {@code BALLAST_SEED}, if any.
	 * @return the seed, or empty for a fresh one per property
	 */
	public static Optional<Long> fixedSeed() {
		String value = System.getProperty(SEED_PROPERTY);
		if (unset(value)) {
			value = System.getenv(SEED_VARIABLE);
		}
		if (unset(value)) {
			return Optional.empty();
		}
		try {
			return Optional.of(Long.parseLong(value.strip()));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(
					SEED_PROPERTY + " must be a long, as printed after \"Seed was\"; got \"" + value + "\"", ex);
		}
	}

	// Surefire hands an undefined ${ballast.seed} over as an empty string (or, in some
	// versions, as the expression itself).
	private static boolean unset(String value) {
		return value == null || value.isBlank() || value.startsWith("${");
	}

	/**
	 * Values drawn from {@code gen}, and one in five times one of {@code edges}:
	 * QuickTheories visits only a generator's shrink target and bounds on its own, so the
	 * edge cases a property must meet are listed where it is written.
	 * @param <T> the type of values
	 * @param gen the generator of ordinary values
	 * @param edges the edge cases
	 * @return the mixed generator
	 */
	@SafeVarargs
	public static <T> Gen<T> withEdges(Gen<T> gen, T... edges) {
		return gen.mix(Generate.pick(Arrays.asList(edges)), 20);
	}

	/**
	 * Strings of up to {@code maxLength} UTF-16 units drawn from the whole {@code char}
	 * range, unpaired surrogates and control characters included.
	 * @param maxLength the longest string
	 * @return the generator
	 */
	public static Gen<String> anyChars(int maxLength) {
		return charsBetween(Character.MIN_VALUE, Character.MAX_VALUE, 0, maxLength);
	}

	/**
	 * Strings of {@code minLength} to {@code maxLength} chars from {@code first} to
	 * {@code last}.
	 * @param first the lowest char
	 * @param last the highest char
	 * @param minLength the shortest string
	 * @param maxLength the longest string
	 * @return the generator
	 */
	public static Gen<String> charsBetween(char first, char last, int minLength, int maxLength) {
		Gen<String> strings = SourceDSL.lists()
			.of(Generate.characters(first, last))
			.ofSizeBetween(minLength, maxLength)
			.map(Properties::join);
		return minLength == 0 ? withEdges(strings, "") : strings;
	}

	/**
	 * Strings of {@code minLength} to {@code maxLength} chars picked from {@code chars}.
	 * @param chars the chars to pick from
	 * @param minLength the shortest string
	 * @param maxLength the longest string
	 * @return the generator
	 */
	public static Gen<String> charsOf(String chars, int minLength, int maxLength) {
		List<Character> alphabet = chars.chars().mapToObj(c -> (char) c).toList();
		return SourceDSL.lists().of(Generate.pick(alphabet)).ofSizeBetween(minLength, maxLength).map(Properties::join);
	}

	/**
	 * Text that PostgreSQL cannot store or that a careless border lets through: NUL, lone
	 * surrogates (high, low, reversed pairs), other control characters and DEL, alone or
	 * inside ordinary text, and a valid pair as the one that must pass.
	 * @return the generator of hostile strings (as Java strings, not yet JSON)
	 */
	public static Gen<String> hostileText() {
		Gen<String> bad = Generate.pick(List.of("\u0000", "\ud800", "\udfff", "\udc00\ud800", "\u0007", "\u001b",
				"\u007f", "\r\n", "\u0000\u0000", "\ud83d"));
		Gen<String> around = charsOf("abc-_.", 0, 3);
		return around.zip(bad, around, (before, middle, after) -> before + middle + after);
	}

	/**
	 * RFC 3339 timestamps at and beyond the edges of what PostgreSQL and
	 * {@link java.time.Instant} hold, as JSON strings.
	 * @return the generator
	 */
	public static Gen<String> hostileTimestamps() {
		return Generate.pick(List.of("\"+294277-01-01T00:00:00Z\"", "\"+1000000000-01-01T00:00:00Z\"",
				"\"-1000000000-01-01T00:00:00Z\"", "\"-4714-11-23T00:00:00Z\"", "\"+10000-01-01T00:00:00Z\"",
				"\"0000-01-01T00:00:00Z\"", "\"-0001-12-31T23:59:59Z\"", "\"9999-12-31T23:59:59.999999999Z\"",
				"\"1970-01-01T00:00:00Z\"", "\"2030-01-01T00:00:00+14:00\"", "\"2030-02-30T00:00:00Z\"",
				"\"2030-01-01T24:00:00Z\"", "\"2030-01-01\""));
	}

	/**
	 * Numbers at and beyond the edges of every integer type, as JSON.
	 * @return the generator
	 */
	public static Gen<String> hostileNumbers() {
		return Generate.pick(List.of("9223372036854775807", "-9223372036854775808", "9223372036854775808", "2147483647",
				"-2147483648", "2147483648", "1e308", "-1e308", "1e-400", "4.9e-324", "-0",
				"99999999999999999999999999999999", "0.5"));
	}

	/**
	 * {@code text} as a JSON string, with every control character and surrogate written
	 * as a {@code \}{@code uXXXX} escape, so that any Java string, lone surrogates
	 * included, travels as the client meant it.
	 * @param text the text
	 * @return the JSON string, quoted
	 */
	public static String jsonString(String text) {
		StringBuilder out = new StringBuilder("\"");
		for (char c : text.toCharArray()) {
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				default -> {
					if (c < 0x20 || Character.isSurrogate(c)) {
						out.append("\\u%04x".formatted((int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

	private static String join(List<Character> chars) {
		StringBuilder text = new StringBuilder(chars.size());
		chars.forEach(text::append);
		return text.toString();
	}

}
