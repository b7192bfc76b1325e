package dev.ballast.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

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

	/**
	 * Starts one with its data in {@code dataDirectory}, on a free port below the
	 * kernel's ephemeral range: PostgreSQL cannot bind port 0 and report it, and the port
	 * must stay the same across the outage, so it is one that no outgoing connection and
	 * no port-0 socket is ever given. Another process choosing the same way may still
	 * take it first: then PostgreSQL does not start, and another port is tried (3 in
	 * all), each in a data directory of its own (a failed start keeps its directory
	 * locked).
	 */
	public static OutageDatabase startIn(Path dataDirectory) throws IOException {
		IOException refused = new IOException("PostgreSQL did not start on any of 3 ports");
		for (int attempt = 0; attempt < 3; attempt++) {
			int port = portBelowEphemeralRange();
			OutageDatabase database = new OutageDatabase(dataDirectory.resolve("port-" + port), port);
			try {
				database.start();
				return database;
			}
			catch (IOException | RuntimeException ex) {
				refused.addSuppressed(ex);
			}
		}
		throw refused;
	}

	private static int portBelowEphemeralRange() throws IOException {
		// Read by lines: Files.readString may see only part of a /proc file (its size is
		// 0).
		String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).getFirst();
		int ephemeral = Integer.parseInt(range.strip().split("\\s+")[0]);
		return ThreadLocalRandom.current().nextInt(10_000, ephemeral);
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
