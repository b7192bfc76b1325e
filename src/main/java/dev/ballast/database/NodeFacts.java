package dev.ballast.database;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The {@code node} table: what each node states about itself, a row per node
 * ({@link ThisNode}), a column per fact. A fact a node no longer states is null, and a
 * row left stating none is deleted. Two facts: that a node probes, with when it last said
 * so ({@code seen_at}, by the database's clock, so that the nodes' clocks need not
 * agree), and how far it wrote the lease renewals it absorbed ({@code renewals_through},
 * by the node's own clock, like the leases the sweep judges against it).
 */
@Component
public class NodeFacts {

	/** A row that states no fact any more. */
	private static final String STATES_NOTHING = "seen_at IS NULL AND renewals_through IS NULL";

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

	/**
	 * Says that {@code node} has written every lease renewal it absorbed before
	 * {@code through}; a position never moves back.
	 */
	public void wrote(String node, Instant through) {
		jdbc.sql("""
				INSERT INTO node (node, renewals_through) VALUES (?, ?)
				ON CONFLICT (node) DO UPDATE
				  SET renewals_through = greatest(node.renewals_through, EXCLUDED.renewals_through)""")
			.params(node, Timestamp.from(through))
			.update();
	}

	/** {@code node} stops cleanly, having written every renewal it absorbed. */
	public void stopsWriting(String node) {
		jdbc.sql("UPDATE node SET renewals_through = NULL WHERE node = ?").param(node).update();
		forgetSilent();
	}

	/**
	 * The earliest moment through which a node silent since {@code behind} but not since
	 * {@code gone} wrote its renewals; the positions of nodes silent since {@code gone}
	 * are forgotten.
	 */
	public Optional<Instant> silentWritersThrough(Instant behind, Instant gone) {
		jdbc.sql("UPDATE node SET renewals_through = NULL WHERE renewals_through < ?")
			.param(Timestamp.from(gone))
			.update();
		forgetSilent();
		return jdbc.sql("SELECT min(renewals_through) FROM node WHERE renewals_through < ?")
			.param(Timestamp.from(behind))
			.query((rs, row) -> Optional.ofNullable(rs.getTimestamp(1)).map(Timestamp::toInstant))
			.single();
	}

	/**
	 * Each writer's position, the moment through which it wrote its renewals, by node.
	 */
	public Map<String, Instant> positions() {
		Map<String, Instant> positions = new TreeMap<>();
		jdbc.sql("SELECT node, renewals_through FROM node WHERE renewals_through IS NOT NULL").query(rs -> {
			positions.put(rs.getString(1), rs.getTimestamp(2).toInstant());
		});
		return positions;
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
