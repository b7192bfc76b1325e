package dev.ballast.database;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Starts the embedded PostgreSQL server when no external database is configured.
 *
 * <p>
 * The server is a bean whose {@code close} stops it, and the data source depends on it,
 * so Spring closes the pool first and stops the server last on shutdown.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(NoDatasourceConfigured.class)
class EmbeddedDatabase {

	private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);

	private static final String DATABASE = "postgres";

	private static final String USER = "postgres";

	@Bean(destroyMethod = "close")
	EmbeddedPostgres embeddedPostgres(DataDirectory dataDirectory) throws IOException {
		Path pgData = dataDirectory.path().resolve("postgres").toAbsolutePath();
		Files.createDirectories(pgData);
		new StalePostmaster(pgData).clear(Duration.ofSeconds(20));
		log.info("Starting embedded PostgreSQL with its files in {}", pgData);
		return EmbeddedPostgres.builder()
			.setDataDirectory(pgData)
			.setCleanDataDirectory(false)
			// Spring stops the server after the pool, when the context closes; the
			// library's own JVM hook would cut in-flight writes during a graceful
			// shutdown. A killed node's server is cleared by StalePostmaster instead.
			.setRegisterShutdownHook(false)
			// The library turns synchronous_commit off for speed in tests; an
			// acknowledged write must be on disk, so it goes back on here.
			.setServerConfig("synchronous_commit", "on")
			.setServerConfig("fsync", "on")
			.setServerConfig("listen_addresses", "127.0.0.1")
			.setServerConfig("max_connections", "100")
			.setPGStartupWait(Duration.ofSeconds(60))
			.start();
	}

	@Bean
	@ConfigurationProperties("spring.datasource.hikari")
	HikariDataSource dataSource(EmbeddedPostgres postgres) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgres.getJdbcUrl(USER, DATABASE));
		dataSource.setUsername(USER);
		return dataSource;
	}

}
