package dev.ballast.database;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Starts the embedded PostgreSQL server when no external database is configured.
 *
 * <p>
 * The server starts on a thread of its own as soon as the application context begins to
 * create beans, so that its start (and on first run its {@code initdb}) overlaps the
 * second or more the context takes until the first bean needs a connection. The data
 * source waits for it, bounded.
 *
 * <p>
 * The started server belongs to {@link Start}, a bean that the data source depends on
 * through {@link #embeddedPostgres}, so Spring closes the pool first and stops the server
 * last on shutdown; a context that fails to start stops it too.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(NoDatasourceConfigured.class)
class EmbeddedDatabase {

	private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);

	private static final String DATABASE = "postgres";

	private static final String USER = "postgres";

	private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

	/** Static: a factory post-processor is created before any other bean. */
	@Bean
	static Start embeddedPostgresStart() {
		return new Start();
	}

	/** The started server; {@link Start} stops it. */
	@Bean(destroyMethod = "")
	EmbeddedPostgres embeddedPostgres(Start start) {
		return start.await();
	}

	@Bean
	@ConfigurationProperties("spring.datasource.hikari")
	HikariDataSource dataSource(EmbeddedPostgres postgres) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgres.getJdbcUrl(USER, DATABASE));
		dataSource.setUsername(USER);
		return dataSource;
	}

	private static EmbeddedPostgres start(Path dataDir) throws IOException {
		Path pgData = dataDir.resolve("postgres").toAbsolutePath();
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
			.setPGStartupWait(STARTUP_WAIT)
			.start();
	}

	/**
	 * The server's start, begun before the context creates its beans, and the server it
	 * started until the context closes.
	 */
	static final class Start implements BeanFactoryPostProcessor, EnvironmentAware, DisposableBean {

		private final CompletableFuture<EmbeddedPostgres> server = new CompletableFuture<>();

		private Path dataDir;

		/** Whether a start was begun: the build's bean generation begins none. */
		private volatile boolean begun;

		@Override
		public void setEnvironment(Environment environment) {
			if (!new NoDatasourceConfigured().matches(environment)) {
				// Only a start on build-time bean definitions gets here with a URL set:
				// they were made for the embedded database, and using it instead of the
				// database asked for would split the registry in two without a word.
				throw new IllegalStateException("spring.datasource.url is set, but this node starts on the bean "
						+ "definitions generated at build time for the embedded database (-Dspring.aot.enabled=true); "
						+ "start it without -Dspring.aot.enabled=true to use an external database");
			}
			// The record bound here, as its bean binds it later (too late for this
			// start), so that its default is the one.
			dataDir = Binder.get(environment).bindOrCreate("ballast", DataDirectory.class).path();
		}

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
			if (Boolean.getBoolean("spring.aot.processing")) {
				// The build generating bean definitions (process-aot): nothing runs.
				return;
			}
			begun = true;
			Thread.ofPlatform().name("ballast-embedded-postgres").daemon().start(() -> {
				try {
					server.complete(start(dataDir));
				}
				catch (IOException | RuntimeException ex) {
					server.completeExceptionally(ex);
				}
			});
		}

		EmbeddedPostgres await() {
			try {
				// The library bounds the server's own start; this adds room for
				// clearing a stale server and unpacking the binaries on first run.
				return server.get(STARTUP_WAIT.plusSeconds(60).toSeconds(), TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof IOException io) {
					throw new UncheckedIOException("embedded PostgreSQL did not start: " + io.getMessage(), io);
				}
				throw new IllegalStateException("embedded PostgreSQL did not start: " + ex.getCause().getMessage(),
						ex.getCause());
			}
			catch (TimeoutException ex) {
				throw new IllegalStateException("embedded PostgreSQL did not start within " + STARTUP_WAIT, ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("interrupted while embedded PostgreSQL started", ex);
			}
		}

		/**
		 * Stops the server, once it has started; waits for a start under way, bounded.
		 */
		@Override
		public void destroy() throws IOException {
			if (!begun) {
				// Else process-aot waited out the whole bound (2 min) for a start never
				// begun.
				return;
			}
			EmbeddedPostgres started;
			try {
				started = server.get(STARTUP_WAIT.plusSeconds(60).toSeconds(), TimeUnit.SECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				return;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			started.close();
		}

	}

}
