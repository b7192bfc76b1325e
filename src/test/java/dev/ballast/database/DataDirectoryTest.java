package dev.ballast.database;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded database's start binds the data directory before any bean exists, by the
 * record the bean binds, so the directory has one default.
 */
class DataDirectoryTest {

	@Test
	void isBoundWithTheRecordsOneDefaultOrAsGiven() {
		assertThat(bound(Map.of()).toAbsolutePath().normalize())
			.isEqualTo(Path.of("data").toAbsolutePath().normalize());
		assertThat(bound(Map.of("ballast.data-dir", "/var/lib/ballast"))).isEqualTo(Path.of("/var/lib/ballast"));
	}

	private static Path bound(Map<String, String> properties) {
		return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("ballast", DataDirectory.class)
			.path();
	}

}
