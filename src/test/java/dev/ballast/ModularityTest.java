package dev.ballast;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ballast.support.SourceText;
import org.junit.jupiter.api.Test;

import org.springframework.modulith.core.ApplicationModules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds the module boundaries: {@code weight} depends on nothing, no cycles between
 * capabilities, modules use only each other's public types, and each module depends only
 * on the modules its {@code package-info.java} allows
 * ({@code @ApplicationModule(allowedDependencies = ...)}), so that a new dependency
 * between capabilities is a decision written down, not an accident. And a name the
 * database knows (a notification channel, a table) that a constant holds is written
 * nowhere else, where the module check cannot see it.
 */
class ModularityTest {

	private static final Pattern STRING_CONSTANT = Pattern
		.compile("static final String (\\w+) = \"([a-z][a-z0-9_]*)\";");

	@Test
	void modulesRespectTheirBoundaries() {
		ApplicationModules.of(BallastApplication.class).verify();
	}

	/**
	 * Consul's catalog once listened on {@code "ballast_changes"}, copied from the watch
	 * module's constant: a coupling no type shows. The names checked are the values of
	 * string constants in {@code src/main/java} that name a notification channel (the
	 * registry's own, {@code ballast_...}) or a table of {@code db/migration} whose name
	 * is no plain word ({@code change_log}, not {@code service}, which other constants
	 * hold for other meanings); such a value must appear in no string literal of another
	 * source file, which uses the constant (or the module's interface) instead.
	 */
	@Test
	void aChannelOrTableThatAConstantNamesIsWrittenNowhereElse() throws IOException {
		Set<String> tables = SourceText.tables();
		Map<Path, String> code = SourceText.mainSources();
		Map<String, Path> named = new LinkedHashMap<>();
		code.forEach((source, text) -> {
			Matcher constant = STRING_CONSTANT.matcher(text);
			while (constant.find()) {
				String value = constant.group(2);
				if (value.startsWith("ballast_") || (value.contains("_") && tables.contains(value))) {
					named.put(value, source);
				}
			}
		});
		assertThat(named).as("channel constants").containsKey("ballast_changes");
		List<String> copies = new ArrayList<>();
		named.forEach((value, declaring) -> code.forEach((source, text) -> {
			Pattern word = Pattern.compile("\\b" + value + "\\b");
			if (!source.equals(declaring)
					&& SourceText.literals(text).stream().anyMatch(literal -> word.matcher(literal).find())) {
				copies.add("%s writes \"%s\", which %s holds".formatted(source.getFileName(), value,
						declaring.getFileName()));
			}
		}));
		assertThat(copies).as("names written beside their constant").isEmpty();
	}

}
