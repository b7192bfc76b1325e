package dev.ballast.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The server's sources and migrations read as text, for the architecture tests that check
 * what no type shows: the names of tables and channels written in SQL and constants.
 */
public final class SourceText {

	private static final Pattern CREATE_TABLE = Pattern
		.compile("(?i)create table (?:if not exists )?([a-z][a-z0-9_]*)");

	private static final Pattern DROP_TABLE = Pattern.compile("(?i)drop table (?:if exists )?([a-z][a-z0-9_]*)");

	private static final Pattern TEXT_BLOCK = Pattern.compile("\"\"\"(.*?)\"\"\"", Pattern.DOTALL);

	private static final Pattern STRING = Pattern.compile("\"((?:\\\\.|[^\"\\\\\\n])*)\"");

	private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

	private SourceText() {
	}

	/** Every Java source of {@code src/main/java}, by path, its comments left out. */
	public static Map<Path, String> mainSources() throws IOException {
		Map<Path, String> code = new LinkedHashMap<>();
		try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
			for (Path source : sources.filter(path -> path.toString().endsWith(".java")).sorted().toList()) {
				code.put(source, withoutComments(Files.readString(source)));
			}
		}
		return code;
	}

	public static String withoutComments(String code) {
		return COMMENT.matcher(code).replaceAll("");
	}

	/** The contents of the text blocks and string literals of {@code code}. */
	public static List<String> literals(String code) {
		List<String> literals = new ArrayList<>();
		Matcher block = TEXT_BLOCK.matcher(code);
		while (block.find()) {
			literals.add(block.group(1));
		}
		Matcher string = STRING.matcher(TEXT_BLOCK.matcher(code).replaceAll(""));
		while (string.find()) {
			literals.add(string.group(1));
		}
		return literals;
	}

	/**
	 * The tables of {@code db/migration}: created by one and dropped by none (no table is
	 * created again after it was dropped).
	 */
	public static Set<String> tables() throws IOException {
		Set<String> tables = new TreeSet<>();
		Set<String> dropped = new TreeSet<>();
		try (Stream<Path> migrations = Files.list(Path.of("db/migration"))) {
			for (Path migration : migrations.toList()) {
				String sql = Files.readString(migration);
				CREATE_TABLE.matcher(sql).results().forEach(found -> tables.add(found.group(1).toLowerCase()));
				DROP_TABLE.matcher(sql).results().forEach(found -> dropped.add(found.group(1).toLowerCase()));
			}
		}
		tables.removeAll(dropped);
		return tables;
	}

}
