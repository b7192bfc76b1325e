package dev.ballast.probe;

import java.time.Instant;
import java.util.List;

import dev.ballast.database.ThisNode;
import dev.ballast.registry.CheckSettings;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The nodes that share the probing: each says it is alive in the {@code prober} table
 * every membership interval, and counts as gone when it has not for three. Times are the
 * database's, so the nodes' clocks need not agree.
 */
@Component
class ProberMembership {

	private final JdbcClient jdbc;

	private final CheckSettings settings;

	/** This process: a restarted node is a new member, whose checks start afresh. */
	private final String node;

	ProberMembership(JdbcClient jdbc, CheckSettings settings, ThisNode node) {
		this.jdbc = jdbc;
		this.settings = settings;
		this.node = node.id();
	}

	String node() {
		return node;
	}

	/**
	 * Says this node is alive, forgets members long gone, and reads who is alive now.
	 * @return the live nodes, this one included
	 */
	List<String> beat() {
		jdbc.sql("""
				INSERT INTO prober (node, seen_at) VALUES (?, now())
				ON CONFLICT (node) DO UPDATE SET seen_at = now()""").param(node).update();
		jdbc.sql("DELETE FROM prober WHERE seen_at < now() - interval '1 hour'").update();
		return jdbc.sql("SELECT node FROM prober WHERE seen_at > now() - ? * interval '1 millisecond' ORDER BY node")
			.param(settings.liveness().toMillis())
			.query(String.class)
			.list();
	}

	/**
	 * Every node seen within the last hour (the rest are forgotten), with when it was
	 * last seen, by the database's clock, and whether that is within the liveness.
	 */
	List<Member> members() {
		return jdbc.sql("""
				SELECT node, seen_at, seen_at > now() - ? * interval '1 millisecond' AS alive
				  FROM prober ORDER BY node""")
			.param(settings.liveness().toMillis())
			.query((rs, row) -> new Member(rs.getString("node"), rs.getTimestamp("seen_at").toInstant(),
					rs.getBoolean("alive")))
			.list();
	}

	/**
	 * A node that shares the probing.
	 *
	 * @param node its identity
	 * @param seenAt when it last said it was alive, or null when it never did
	 * @param alive whether it did within the liveness
	 */
	record Member(String node, Instant seenAt, boolean alive) {
	}

	/** A node that stops cleanly hands its checks over at once. */
	void leave() {
		jdbc.sql("DELETE FROM prober WHERE node = ?").param(node).update();
	}

}
