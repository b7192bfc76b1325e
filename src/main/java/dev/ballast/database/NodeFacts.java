package dev.ballast.database;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The {@code node} table: what each node states about itself, a row per node
 * ({@link ThisNode}), a column per fact. A fact a node no longer states is null, and a
 * row left stating none is deleted. Times are the database's, so the nodes' clocks need
 * not agree. The one fact so far: that a node probes, with when it last said so.
 */
@Component
public class NodeFacts {

	/** A row that states no fact any more. */
	private static final String STATES_NOTHING = "seen_at IS NULL";

	private final JdbcClient jdbc;

	NodeFacts(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** {@code node} says it probes, now. */
	public void probes(String node) {
		jdbc.sql("""
				INSERT INTO node (node, seen_at) VALUES (?, now())
				ON CONFLICT (node) DO UPDATE SET seen_at = now()""").param(node).update();
	}

	/** {@code node} stops probing (it stops cleanly). */
	public void stopsProbing(String node) {
		jdbc.sql("UPDATE node SET seen_at = NULL WHERE node = ?").param(node).update();
		forgetSilent();
	}

	/** Forgets that nodes probe when they have not said so for {@code forgotten}. */
	public void forgetProbersSilentFor(Duration forgotten) {
		jdbc.sql("UPDATE node SET seen_at = NULL WHERE seen_at < now() - ? * interval '1 millisecond'")
			.param(forgotten.toMillis())
			.update();
		forgetSilent();
	}

	/** The nodes that said they probe within {@code liveness}, sorted. */
	public List<String> probing(Duration liveness) {
		return jdbc.sql("SELECT node FROM node WHERE seen_at > now() - ? * interval '1 millisecond' ORDER BY node")
			.param(liveness.toMillis())
			.query(String.class)
			.list();
	}

	/**
	 * Every node that says it probes, sorted, alive when it said so within
	 * {@code liveness}.
	 */
	public List<Prober> probers(Duration liveness) {
		return jdbc.sql("""
				SELECT node, seen_at, seen_at > now() - ? * interval '1 millisecond' AS alive
				  FROM node WHERE seen_at IS NOT NULL ORDER BY node""")
			.param(liveness.toMillis())
			.query((rs, row) -> new Prober(rs.getString("node"), rs.getTimestamp("seen_at").toInstant(),
					rs.getBoolean("alive")))
			.list();
	}

	private void forgetSilent() {
		jdbc.sql("DELETE FROM node WHERE " + STATES_NOTHING).update();
	}

	/**
	 * A node that probes.
	 *
	 * @param node its identity
	 * @param seenAt when it last said so, or null when it never did (a node listed for
	 * another fact)
	 * @param alive whether it did within the liveness asked for
	 */
	public record Prober(String node, Instant seenAt, boolean alive) {
	}

}
