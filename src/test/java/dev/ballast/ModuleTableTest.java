package dev.ballast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.modulith.core.ApplicationModule;
import org.springframework.modulith.core.ApplicationModules;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module table of {@code docs/design/ARCHITECTURE.md} lists every module of the code
 * and no other, once each: it once listed 8 of 15, and a reader could not tell the rest
 * existed. The modules are Spring Modulith's, those of the server's own sources.
 */
class ModuleTableTest {

	static final Path ARCHITECTURE = Path.of("docs/design/ARCHITECTURE.md");

	private static final String HEADING = "## Modules";

	private static final Path SOURCES = Path.of("src/main/java");

	/** {@code | `name` | what it owns | `table`, `table` |} */
	private static final Pattern ROW = Pattern.compile("^\\| `([a-z]+)` \\|([^|]*)\\|([^|]*)\\|$");

	private static final Pattern TABLE_NAME = Pattern.compile("`([a-z_]+)`");

	@Test
	void everyModuleHasItsRowAndEveryRowAModule() throws IOException {
		// The client library's package (dev.ballast.client) is on the test class path
		// only: an artifact of its own, no module of the server.
		Set<String> code = ApplicationModules.of(BallastApplication.class)
			.stream()
			.filter(module -> Files.isDirectory(SOURCES.resolve(module.getBasePackage().getName().replace('.', '/'))))
			.map(ApplicationModule::getName)
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(code).as("modules of the code").hasSizeGreaterThanOrEqualTo(15);
		assertThat(tables().keySet()).as("modules in the table of " + ARCHITECTURE)
			.containsExactlyInAnyOrderElementsOf(code);
	}

	/**
	 * The rows of the module table, in order: each module's name and the tables it owns.
	 * @throws IllegalStateException when a module has two rows
	 */
	static Map<String, List<String>> tables() throws IOException {
		List<String> lines = Files.readAllLines(ARCHITECTURE);
		int start = -1;
		for (int index = 0; index < lines.size() && start < 0; index++) {
			if (lines.get(index).startsWith(HEADING)) {
				start = index;
			}
		}
		assertThat(start).as("a section '" + HEADING + "' in " + ARCHITECTURE).isNotNegative();
		Map<String, List<String>> rows = new LinkedHashMap<>();
		for (String line : lines.subList(start + 1, lines.size())) {
			if (line.startsWith("## ")) {
				break;
			}
			Matcher row = ROW.matcher(line);
			if (row.matches()) {
				List<String> owned = TABLE_NAME.matcher(row.group(3)).results().map(found -> found.group(1)).toList();
				if (rows.put(row.group(1), owned) != null) {
					throw new IllegalStateException("module " + row.group(1) + " has two rows in " + ARCHITECTURE);
				}
			}
		}
		return rows;
	}

}
