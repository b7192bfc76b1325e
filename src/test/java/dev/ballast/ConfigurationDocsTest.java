package dev.ballast;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * written out or as a {@code ballast.x.*} family that points further.
 */
class ConfigurationDocsTest {

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(ballast\\.[a-z0-9.-]+)");

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
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<String> properties = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("dev.ballast")) {
			Class<?> type = Class.forName(candidate.getBeanClassName());
			ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
			String prefix = annotation.value().isEmpty() ? annotation.prefix() : annotation.value();
			collect(prefix, type, properties);
		}
		return properties;
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
		try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
			for (Path source : sources.filter(path -> path.toString().endsWith(".java")).toList()) {
				Matcher matcher = PLACEHOLDER.matcher(Files.readString(source));
				while (matcher.find()) {
					properties.add(matcher.group(1));
				}
			}
		}
		return properties;
	}

}
