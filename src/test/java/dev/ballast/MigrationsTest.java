package dev.ballast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The migrations' numbers ({@code db/README.md}): the gaps below V75 stay as they were
 * applied, and every migration after it takes the next number.
 */
class MigrationsTest {

	/** The highest version applied before the numbers were kept dense. */
	private static final int LAST_SPARSE = 75;

	/**
	 * Numbers a branch not merged yet has taken (the xds branch's V79 and V80): another
	 * branch takes the numbers after them, and the gap closes when it merges.
	 */
	private static final Set<Integer> TAKEN_ELSEWHERE = Set.of(79, 80);

	private static final Pattern VERSION = Pattern.compile("V(\\d+)__[a-z0-9_]+\\.sql");

	@Test
	void aNewMigrationTakesTheNextNumber() throws IOException {
		List<Integer> versions;
		try (Stream<Path> files = Files.list(Path.of("db/migration"))) {
			versions = files.map(file -> file.getFileName().toString()).map(name -> {
				Matcher matcher = VERSION.matcher(name);
				assertThat(matcher.matches()).as("%s is named V<n>__<what_it_does>.sql", name).isTrue();
				return Integer.parseInt(matcher.group(1));
			}).sorted().toList();
		}
		assertThat(versions).as("one migration per number").doesNotHaveDuplicates().contains(LAST_SPARSE);
		List<Integer> dense = java.util.stream.Stream
			.concat(versions.stream(), TAKEN_ELSEWHERE.stream().filter(version -> !versions.contains(version)))
			.filter(version -> version > LAST_SPARSE)
			.sorted()
			.toList();
		assertThat(dense).as("the numbers after V%d", LAST_SPARSE)
			.isEqualTo(IntStream.rangeClosed(LAST_SPARSE + 1, LAST_SPARSE + dense.size()).boxed().toList());
	}

}
