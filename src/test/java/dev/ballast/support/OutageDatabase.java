package dev.ballast.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A PostgreSQL of a test's own, which the test stops and starts again to play an outage:
 * on the same port and data, so the node under test keeps its JDBC URL throughout.
 */
public final class OutageDatabase implements AutoCloseable {

	private final Path dataDirectory;

	private final int port;

	private EmbeddedPostgres postgres;

	private OutageDatabase(Path dataDirectory, int port) {
		this.dataDirectory = dataDirectory;
		this.port = port;
	}

	/** Starts one with its data in {@code dataDirectory}, on a free port. */
	public static OutageDatabase startIn(Path dataDirectory) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		OutageDatabase database = new OutageDatabase(dataDirectory, port);
		database.start();
		return database;
	}

	/** Starts it (again, after {@link #stop()}). */
	public void start() throws IOException {
		postgres = EmbeddedPostgres.builder()
			.setDataDirectory(dataDirectory)
			.setCleanDataDirectory(false)
			.setPort(port)
			// As the node's own embedded database: an acknowledged write is on disk.
			.setServerConfig("synchronous_commit", "on")
			.start();
	}

	/** The outage: the server stops, its data stays. */
	public void stop() throws IOException {
		EmbeddedPostgres running = postgres;
		postgres = null;
		running.close();
	}

	/** What a node connects with. */
	public TestDatabase.Server server() {
		return new TestDatabase.Server(jdbcUrl(), "postgres", "");
	}

	public String jdbcUrl() {
		return "jdbc:postgresql://localhost:%d/postgres?user=postgres".formatted(port);
	}

	/** The running server's own database. */
	public DataSource dataSource() {
		return postgres.getPostgresDatabase();
	}

	@Override
	public void close() throws IOException {
		if (postgres != null) {
			stop();
		}
	}

}
