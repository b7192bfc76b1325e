package dev.ballast.database;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import dev.ballast.support.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V84 moves each node's lease writer position from {@code lease_writer} into the node
 * table: beside the probing fact of a node that has one, in a row of its own otherwise,
 * and, for an id longer than the node table allows, cut to its length with the earliest
 * position of the ids that meet there (the sweep holds back more, never less). Migrated
 * in a schema of its own of the shared test database, up to V83 and then V84.
 */
class NodeRenewalsMigrationTest {

	private static final String SCHEMA = "node_renewals_migration";

	private final TestDatabase.Server db = TestDatabase.server();

	private final JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(db.url(), db.user(), db.password()));

	@AfterEach
	void dropSchema() {
		jdbc.sql("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE").update();
	}

	@Test
	void everyPositionMovesIntoTheNodeTableAndLeaseWriterGoes() {
		dropSchema();
		migrateTo("83");
		Instant both = Instant.parse("2026-01-01T00:00:01Z");
		Instant writer = Instant.parse("2026-01-01T00:00:02Z");
		Instant longLater = Instant.parse("2026-01-01T00:00:04Z");
		Instant longEarlier = Instant.parse("2026-01-01T00:00:03Z");
		String cut = "n".repeat(200);
		jdbc.sql("INSERT INTO " + SCHEMA + ".node (node, seen_at) VALUES ('both', now())").update();
		writes("both", both);
		writes("writer", writer);
		writes(cut + "-a", longLater);
		writes(cut + "-b", longEarlier);

		migrateTo("84");

		Map<String, Instant> positions = new TreeMap<>();
		jdbc.sql("SELECT node, renewals_through FROM " + SCHEMA + ".node").query(rs -> {
			positions.put(rs.getString(1), rs.getTimestamp(2).toInstant());
		});
		assertThat(positions).isEqualTo(Map.of("both", both, "writer", writer, cut, longEarlier));
		assertThat(jdbc.sql("SELECT count(*) FROM " + SCHEMA + ".node WHERE seen_at IS NOT NULL")
			.query(Long.class)
			.single()).as("the probing fact kept").isEqualTo(1);
		assertThat(jdbc.sql("SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename = 'lease_writer'")
			.param(SCHEMA)
			.query(Long.class)
			.single()).as("the lease_writer table").isZero();
	}

	private void writes(String node, Instant through) {
		jdbc.sql("INSERT INTO " + SCHEMA + ".lease_writer (node, renewals_through) VALUES (?, ?)")
			.params(node, Timestamp.from(through))
			.update();
	}

	private void migrateTo(String version) {
		Flyway.configure()
			.dataSource(db.url(), db.user(), db.password())
			.schemas(SCHEMA)
			.locations("classpath:db/migration")
			.target(version)
			.load()
			.migrate();
	}

}
