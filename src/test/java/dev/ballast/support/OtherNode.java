package dev.ballast.support;

import java.util.ArrayList;
import java.util.List;

import dev.ballast.BallastApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A second registry node in the test JVM, on the same PostgreSQL as the
 * {@link RegistryTest} node (or on one of the test's own), with its own settings.
 */
public final class OtherNode implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private OtherNode(ConfigurableApplicationContext context) {
		this.context = context;
	}

	public static OtherNode start(String... properties) {
		return startOn(TestDatabase.server(), properties);
	}

	/** A node on a PostgreSQL of the test's own, which the test may stop and restart. */
	public static OtherNode startOn(TestDatabase.Server db, String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.datasource.url=" + db.url(),
				"spring.datasource.username=" + db.user(), "spring.datasource.password=" + db.password(),
				"spring.jmx.enabled=false", Admin.bootstrapProperty()));
		all.addAll(List.of(properties));
		// As command-line arguments, they win over application.yml (server.port above
		// all).
		return new OtherNode(new SpringApplicationBuilder(BallastApplication.class)
			.run(all.stream().map(property -> "--" + property).toArray(String[]::new)));
	}

	public int port() {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	public <T> T bean(Class<T> type) {
		return context.getBean(type);
	}

	@Override
	public void close() {
		context.close();
	}

}
