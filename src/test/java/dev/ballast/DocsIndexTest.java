package dev.ballast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every page of the manual is listed where a reader looks for it: in the table of
 * {@code docs/README.md} and in the Documentation list of the top-level README.
 */
class DocsIndexTest {

	@Test
	void everyPageIsListedInBothIndexes() throws IOException {
		String index = Files.readString(Path.of("docs/README.md"));
		String readme = Files.readString(Path.of("README.md"));
		List<String> pages;
		try (Stream<Path> docs = Files.list(Path.of("docs"))) {
			pages = docs.map(path -> path.getFileName().toString())
				.filter(name -> name.endsWith(".md") && !name.equals("README.md"))
				.sorted()
				.toList();
		}
		assertThat(pages).as("pages of docs/").isNotEmpty();
		assertThat(pages).filteredOn(page -> !index.contains("| [" + page + "](" + page + ") |"))
			.as("pages missing from the table of docs/README.md")
			.isEmpty();
		assertThat(pages).filteredOn(page -> !readme.contains("- [docs/" + page + "](docs/" + page + ")"))
			.as("pages missing from the Documentation list of README.md")
			.isEmpty();
	}

}
