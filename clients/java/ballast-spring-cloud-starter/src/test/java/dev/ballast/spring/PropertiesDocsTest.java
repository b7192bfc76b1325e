package dev.ballast.spring;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.ConfigurationProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/spring-boot.md says it lists every property of the starter: each one its
 * properties classes bind must be in its table ({@code `ballast.instance.metadata.*`} for
 * a map).
 */
class PropertiesDocsTest {

	@Test
	void everyPropertyIsInTheTableOfTheStartersPage() throws Exception {
		String page = Files.readString(docs());
		List<String> missing = new ArrayList<>();
		for (Class<?> properties : List.of(BallastClientProperties.class, BallastInstanceProperties.class)) {
			String prefix = properties.getAnnotation(ConfigurationProperties.class).value();
			for (PropertyDescriptor property : Introspector.getBeanInfo(properties, Object.class)
				.getPropertyDescriptors()) {
				String name = prefix + "." + property.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
				String written = Map.class.isAssignableFrom(property.getPropertyType()) ? name + ".*" : name;
				if (!page.contains("| `" + written + "` |")) {
					missing.add(written);
				}
			}
		}
		assertThat(missing).as("properties missing from docs/spring-boot.md").isEmpty();
	}

	/** The repository's docs, found from the module, wherever the build runs it. */
	private static Path docs() throws IOException {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			Path page = dir.resolve("docs/spring-boot.md");
			if (Files.isRegularFile(page)) {
				return page;
			}
		}
		throw new IOException("no docs/spring-boot.md above " + Path.of("").toAbsolutePath());
	}

}
