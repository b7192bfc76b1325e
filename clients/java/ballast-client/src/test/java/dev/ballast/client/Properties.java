package dev.ballast.client;

import java.util.Arrays;
import java.util.List;

import org.quicktheories.QuickTheory;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * The one entry point to QuickTheories for the client's property tests, with the same
 * rules as the server's {@code dev.ballast.support.Properties} (docs/testing.md): a fresh
 * seed per run, printed as {@code Seed was N} when a property fails, and
 * {@code -Dballast.seed=N} (or {@code BALLAST_SEED}) to replay it. The client is a build
 * of its own, so it cannot share the server's test classes.
 */
final class Properties {

	private static final int DEFAULT_TRIES = 1000;

	private Properties() {
	}

	/** A theory checked with 1000 tries. */
	static QuickTheory qt() {
		return qt(DEFAULT_TRIES);
	}

	/** A theory checked with {@code tries} tries, on the fixed seed when one is set. */
	static QuickTheory qt(int tries) {
		QuickTheory theory = QuickTheory.qt().withExamples(tries);
		String seed = System.getProperty("ballast.seed");
		if (unset(seed)) {
			seed = System.getenv("BALLAST_SEED");
		}
		return unset(seed) ? theory : theory.withFixedSeed(Long.parseLong(seed.strip()));
	}

	// Surefire hands an undefined ${ballast.seed} over as an empty string or as the
	// expression itself.
	private static boolean unset(String value) {
		return value == null || value.isBlank() || value.startsWith("${");
	}

	/** Values from {@code gen}, and one in five times one of {@code edges}. */
	@SafeVarargs
	static <T> Gen<T> withEdges(Gen<T> gen, T... edges) {
		return gen.mix(Generate.pick(Arrays.asList(edges)), 20);
	}

	/**
	 * Strings of {@code minLength} to {@code maxLength} chars picked from {@code chars}.
	 */
	static Gen<String> charsOf(String chars, int minLength, int maxLength) {
		List<Character> alphabet = chars.chars().mapToObj((c) -> (char) c).toList();
		return SourceDSL.lists().of(Generate.pick(alphabet)).ofSizeBetween(minLength, maxLength).map((list) -> {
			StringBuilder text = new StringBuilder(list.size());
			list.forEach(text::append);
			return text.toString();
		});
	}

}
