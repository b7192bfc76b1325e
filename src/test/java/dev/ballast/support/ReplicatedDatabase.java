package dev.ballast.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * Two PostgreSQL servers of a test's own, a primary and a synchronous streaming standby,
 * from the embedded binaries (so nothing needs installing): the test kills, promotes and
 * demotes them as a failover manager would, and nodes reach them through a multi-host
 * URL. A cold copy of the stopped primary is the standby's base backup, so only
 * {@code initdb}, {@code pg_ctl} and {@code postgres} are needed; promotion is
 * {@code pg_promote()}.
 */
public final class ReplicatedDatabase implements AutoCloseable {

	private final Member[] members;

	private ReplicatedDatabase(Member first, Member second) {
		this.members = new Member[] { first, second };
	}

	/**
	 * The primary is {@code member(0)}, the standby {@code member(1)}, each on a free
	 * port below the ephemeral range (see {@link OutageDatabase}).
	 */
	public static ReplicatedDatabase startIn(Path directory) throws IOException {
		int base = ThreadLocalRandom.current().nextInt(10_000, 30_000);
		Member primary = new Member(directory.resolve("a"), base);
		Member standby = new Member(directory.resolve("b"), base + 1);
		primary.start();
		// A clean stop, then its files: a consistent base backup without pg_basebackup.
		primary.stop();
		copy(primary.data, standby.data);
		standby.follow(primary);
		primary.start();
		standby.start();
		primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()");
		ReplicatedDatabase database = new ReplicatedDatabase(primary, standby);
		database.awaitSynchronous(primary, Duration.ofSeconds(30));
		return database;
	}

	public Member member(int index) {
		return members[index];
	}

	/**
	 * A URL naming both servers, the primary first, as an operator writes it; with no
	 * {@code targetServerType}, so that the node must bring the rule itself.
	 */
	public TestDatabase.Server server() {
		return new TestDatabase.Server("jdbc:postgresql://localhost:%d,localhost:%d/postgres?user=postgres"
			.formatted(members[0].port, members[1].port), "postgres", "");
	}

	/**
	 * A switchover: the primary stops cleanly (its standby has all of its WAL when it is
	 * down), the standby is promoted and the old primary comes back as its standby, still
	 * first in the URL.
	 */
	public void switchover(Member primary, Member standby) throws IOException {
		primary.stop();
		standby.promote();
		primary.follow(standby);
		primary.start();
		standby.sql("ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()");
		awaitSynchronous(standby, Duration.ofSeconds(30));
	}

	private void awaitSynchronous(Member primary, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		while (!primary.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").equals("1")) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("the standby did not become synchronous within " + within);
			}
			sleep(100);
		}
	}

	@Override
	public void close() {
		for (Member member : members) {
			member.close();
		}
	}

	private static void copy(Path from, Path to) throws IOException {
		try (Stream<Path> files = Files.walk(from)) {
			for (Path file : (Iterable<Path>) files::iterator) {
				Path target = to.resolve(from.relativize(file).toString());
				if (Files.isDirectory(file)) {
					Files.createDirectories(target);
					Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(file));
				}
				else if (!file.getFileName().toString().equals("postmaster.pid")) {
					Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES);
				}
				else {
					continue;
				}
				// The server runs as the owner of its files (the library drops root).
				Files.setOwner(target, Files.getOwner(file));
			}
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** One server of the pair. */
	public static final class Member {

		private final Path data;

		private final int port;

		private EmbeddedPostgres postgres;

		Member(Path data, int port) {
			this.data = data;
			this.port = port;
		}

		public int port() {
			return port;
		}

		void start() throws IOException {
			postgres = EmbeddedPostgres.builder()
				.setDataDirectory(data)
				.setCleanDataDirectory(false)
				.setPort(port)
				.setServerConfig("synchronous_commit", "on")
				.setServerConfig("wal_level", "replica")
				.setServerConfig("max_wal_senders", "5")
				.setServerConfig("hot_standby", "on")
				.setServerConfig("wal_receiver_status_interval", "1s")
				.setPGStartupWait(Duration.ofSeconds(60))
				.start();
		}

		/** Stops it cleanly. */
		public void stop() throws IOException {
			EmbeddedPostgres running = postgres;
			postgres = null;
			running.close();
		}

		/** Makes it a standby of {@code primary} at its next start. */
		void follow(Member primary) throws IOException {
			Files.writeString(data.resolve("standby.signal"), "");
			Files.writeString(data.resolve("postgresql.auto.conf"),
					"%nprimary_conninfo = 'host=localhost port=%d user=postgres application_name=m%d'%n"
						.formatted(primary.port, port),
					StandardOpenOption.APPEND);
		}

		/**
		 * A crash: SIGKILL to the postmaster and every process it started, as when its
		 * machine is lost.
		 */
		public void kill() throws IOException {
			long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
			ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
			postmaster.descendants().forEach(ProcessHandle::destroyForcibly);
			postmaster.destroyForcibly();
			try {
				postmaster.onExit().get(10, TimeUnit.SECONDS);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new IOException("PostgreSQL %d did not die within 10 s".formatted(pid), ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException(ex);
			}
			// Nothing left to stop: close() must not try.
			postgres = null;
		}

		/**
		 * Promotes it, and lets it commit without a synchronous standby, as Patroni's
		 * synchronous mode does while no standby is left.
		 */
		public void promote() {
			sql("SELECT pg_promote(true, 30)", "ALTER SYSTEM SET synchronous_standby_names = ''",
					"SELECT pg_reload_conf()");
		}

		/** Runs statements on it, each in its own transaction. */
		public void sql(String... statements) {
			try (Connection connection = connect(); Statement statement = connection.createStatement()) {
				for (String sql : statements) {
					statement.execute(sql);
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/**
		 * Runs {@code sql} in a transaction left open until the returned handle is
		 * closed: to hold a lock on the server meanwhile.
		 */
		public AutoCloseable holding(String sql) {
			try {
				Connection connection = connect();
				connection.setAutoCommit(false);
				try (Statement statement = connection.createStatement()) {
					statement.execute(sql);
				}
				return connection::close;
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** The first column of the first row, as text. */
		public String query(String sql) {
			try (Connection connection = connect(); var rows = connection.createStatement().executeQuery(sql)) {
				return rows.next() ? rows.getString(1) : null;
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private Connection connect() throws SQLException {
			return DriverManager.getConnection("jdbc:postgresql://localhost:%d/postgres?user=postgres".formatted(port));
		}

		void close() {
			if (postgres != null) {
				try {
					stop();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}

	}

}
