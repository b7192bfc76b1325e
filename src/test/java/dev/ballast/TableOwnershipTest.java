package dev.ballast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.ballast.support.SourceText;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One owner per table: each table of {@code db/migration} belongs to one module, as the
 * module table of {@code docs/design/ARCHITECTURE.md} lists, and only the owner's SQL
 * names it. Another module reads or changes it through the owner's code, so that a rule
 * the owner keeps (every write of {@code instance} through the write path, with its
 * revision, change-log row and audit) cannot be gone around by a statement elsewhere.
 * <p>
 * The check reads the string literals and text blocks of {@code src/main/java} (comments
 * left out) for a table name after {@code FROM}, {@code INTO}, {@code UPDATE},
 * {@code JOIN}, {@code TABLE} or {@code USING}.
 */
class TableOwnershipTest {

	private static final Path SOURCES = Path.of("src/main/java/dev/ballast");

	private static final Pattern STATEMENT_TABLE = Pattern
		.compile("\\b(?:FROM|INTO|UPDATE|JOIN|TABLE|USING)\\s+([a-z][a-z0-9_]*)");

	@Test
	void everyTableHasOneOwner() throws IOException {
		List<String> owned = new ArrayList<>();
		ModuleTableTest.tables().values().forEach(owned::addAll);
		assertThat(owned).as("tables in the module table of " + ModuleTableTest.ARCHITECTURE)
			.doesNotHaveDuplicates()
			.containsExactlyInAnyOrderElementsOf(SourceText.tables());
	}

	@Test
	void noModuleNamesAnotherModulesTable() throws IOException {
		Map<String, String> owners = owners();
		Map<String, List<String>> reaches = new TreeMap<>();
		try (Stream<Path> sources = Files.walk(SOURCES)) {
			for (Path source : sources.filter(path -> path.toString().endsWith(".java")).toList()) {
				Path relative = SOURCES.relativize(source);
				if (relative.getNameCount() < 2) {
					continue;
				}
				String module = relative.getName(0).toString();
				for (String table : tablesNamed(Files.readString(source), owners.keySet())) {
					if (!owners.get(table).equals(module)) {
						reaches.computeIfAbsent(module + " -> " + table, reach -> new ArrayList<>())
							.add(relative.toString());
					}
				}
			}
		}
		assertThat(reaches).as("SQL naming another module's table (module -> table: sources)").isEmpty();
	}

	@Test
	void aStatementIsFoundInLiteralsAndNotInComments() {
		Set<String> tables = Set.of("token", "instance", "service");
		String code = """
				// SELECT * FROM service
				String a = "SELECT id FROM token WHERE role = 'admin'";
				String b = \"""
						UPDATE instance AS i SET weight = 0\""";
				String c = "the service";
				""";
		assertThat(tablesNamed(code, tables)).containsExactlyInAnyOrder("token", "instance");
	}

	/** The known tables that the SQL of {@code code}'s literals names. */
	static Set<String> tablesNamed(String code, Set<String> tables) {
		Set<String> named = new TreeSet<>();
		for (String literal : SourceText.literals(SourceText.withoutComments(code))) {
			Matcher statement = STATEMENT_TABLE.matcher(literal);
			while (statement.find()) {
				if (tables.contains(statement.group(1))) {
					named.add(statement.group(1));
				}
			}
		}
		return named;
	}

	private static Map<String, String> owners() throws IOException {
		Map<String, String> owners = new TreeMap<>();
		ModuleTableTest.tables().forEach((module, tables) -> tables.forEach(table -> owners.put(table, module)));
		return owners;
	}

}
