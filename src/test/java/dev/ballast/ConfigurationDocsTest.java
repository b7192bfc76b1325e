package dev.ballast;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md} says it lists every property: each {@code ballast.*}
 * property the code binds (the components of every {@code @ConfigurationProperties}
 * record, and every {@code ${ballast.…}} placeholder in the sources) must be in it,
 * written out or as a {@code ballast.x.*} family that points further. And each property
 * has one default, in its settings record, and is read there.
 */
class ConfigurationDocsTest {

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(ballast\\.[a-z0-9.-]+)");

	/** A property read beside its settings record, with a default of its own. */
	private static final Pattern SECOND_DEFAULT = Pattern
		.compile("\\$\\{ballast\\.[^}]*}|@ConditionalOn\\w*Property\\([^)]*\"ballast\\.[^)]*\\)");

	private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

	@Test
	void everyPropertyIsDocumented() throws Exception {
		String docs = Files.readString(Path.of("docs/configuration.md"));
		TreeSet<String> properties = new TreeSet<>(bound());
		properties.addAll(placeholders());
		assertThat(properties).as("properties found").isNotEmpty();
		List<String> missing = properties.stream().filter(property -> !documented(docs, property)).toList();
		assertThat(missing).as("ballast.* properties missing from docs/configuration.md").isEmpty();
	}

	/**
	 * A {@code ${ballast.x:default}} placeholder or a {@code @ConditionalOnProperty} with
	 * {@code matchIfMissing} is a second default beside the settings record's, and the
	 * two drift apart: every {@code ballast.*} property is read through its record.
	 */
	@Test
	void everyPropertyHasItsOneDefaultInItsSettingsRecord() throws IOException {
		List<String> elsewhere = new ArrayList<>();
		for (Path source : sources()) {
			Matcher matcher = SECOND_DEFAULT.matcher(Files.readString(source));
			while (matcher.find()) {
				elsewhere.add(source.getFileName() + ": " + matcher.group());
			}
		}
		assertThat(elsewhere).as("ballast.* properties read beside their settings record").isEmpty();
	}

	/**
	 * A component of a settings record that no code reads is a property that does nothing
	 * (as {@code ballast.release.max-duration} once was): read it or remove it.
	 */
	@Test
	void everyBoundPropertyIsRead() throws Exception {
		Map<Path, String> code = new HashMap<>();
		for (Path source : sources()) {
			code.put(source, COMMENT.matcher(Files.readString(source)).replaceAll(""));
		}
		List<String> unread = new ArrayList<>();
		for (Class<?> settings : settingsRecords()) {
			Path own = Path.of("src/main/java", settings.getName().replace('.', '/') + ".java");
			for (RecordComponent component : settings.getRecordComponents()) {
				Pattern accessor = Pattern.compile("\\." + component.getName() + "\\(\\)");
				Pattern name = Pattern.compile("\\b" + component.getName() + "\\b");
				boolean readElsewhere = code.entrySet()
					.stream()
					.anyMatch(entry -> !entry.getKey().equals(own) && accessor.matcher(entry.getValue()).find());
				// Its own code names it once in the header; a second time is a read.
				boolean readInside = name.matcher(code.getOrDefault(own, "")).results().count() > 1;
				if (!readElsewhere && !readInside) {
					unread.add(settings.getSimpleName() + "." + component.getName());
				}
			}
		}
		assertThat(unread).as("settings nobody reads").isEmpty();
	}

	/**
	 * Written out ({@code `ballast.a.b`}), as the second of a pair on a row that names
	 * the first ({@code `ballast.a.b` / `c`}), or under a family ({@code `ballast.a.*`}).
	 */
	private static boolean documented(String docs, String property) {
		if (docs.contains("`" + property + "`")) {
			return true;
		}
		String prefix = property.substring(0, property.lastIndexOf('.'));
		String last = property.substring(property.lastIndexOf('.') + 1);
		if (docs.contains("`" + prefix + ".*`")) {
			return true;
		}
		return docs.lines().anyMatch(line -> line.contains("`" + prefix + ".") && line.contains("/ `" + last + "`"));
	}

	private static List<String> bound() throws ClassNotFoundException {
		List<String> properties = new ArrayList<>();
		for (Class<?> type : settingsRecords()) {
			ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
			String prefix = annotation.value().isEmpty() ? annotation.prefix() : annotation.value();
			collect(prefix, type, properties);
		}
		return properties;
	}

	private static List<Class<?>> settingsRecords() throws ClassNotFoundException {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<Class<?>> records = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("dev.ballast")) {
			records.add(Class.forName(candidate.getBeanClassName()));
		}
		assertThat(records).as("settings records").isNotEmpty();
		return records;
	}

	private static void collect(String prefix, Class<?> type, List<String> properties) {
		for (RecordComponent component : type.getRecordComponents()) {
			String name = prefix + "." + kebab(component.getName());
			if (component.getType().isRecord()) {
				collect(name, component.getType(), properties);
			}
			else {
				properties.add(name);
			}
		}
	}

	private static String kebab(String camel) {
		return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
	}

	private static List<String> placeholders() throws IOException {
		List<String> properties = new ArrayList<>();
		for (Path source : sources()) {
			Matcher matcher = PLACEHOLDER.matcher(Files.readString(source));
			while (matcher.find()) {
				properties.add(matcher.group(1));
			}
		}
		return properties;
	}

	private static List<Path> sources() throws IOException {
		try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
			return sources.filter(path -> path.toString().endsWith(".java")).toList();
		}
	}

}
