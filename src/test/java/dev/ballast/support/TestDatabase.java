package dev.ballast.support;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.testcontainers.postgresql.PostgreSQLContainer;

import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One real PostgreSQL server for the whole test run, shared by every application context
 * (two contexts on it are two registry nodes on one database). By default it is the
 * embedded PostgreSQL 17; with {@code -Dballast.test.database=testcontainers} and a
 * Docker engine, it is the {@code postgres:17} image instead.
 */
public final class TestDatabase implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static Server server;

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		Server db = server();
		TestPropertyValues
			.of("spring.datasource.url=" + db.url(), "spring.datasource.username=" + db.user(),
					"spring.datasource.password=" + db.password(), Admin.bootstrapProperty(),
					// The DNS responder on a free port, so that dns/ tests reach it.
					"ballast.dns.port=0",
					// The xDS server on a free port, so that xds/ tests reach it.
					"ballast.xds.port=0")
			.applyTo(context);
	}

	public static synchronized Server server() {
		if (server == null) {
			server = "testcontainers".equals(System.getProperty("ballast.test.database")) ? container() : embedded();
		}
		return server;
	}

	private static Server embedded() {
		try {
			EmbeddedPostgres postgres = EmbeddedPostgres.builder()
				.setServerConfig("synchronous_commit", "on")
				.setServerConfig("max_connections", "300")
				.start();
			return new Server(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("could not start the embedded PostgreSQL for the tests", ex);
		}
	}

	@SuppressWarnings("resource")
	private static Server container() {
		PostgreSQLContainer container = new PostgreSQLContainer("postgres:17");
		container.start();
		return new Server(container.getJdbcUrl(), container.getUsername(), container.getPassword());
	}

	/** Where the test database listens. */
	public record Server(String url, String user, String password) {
	}

}
