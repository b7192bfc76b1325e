package dev.ballast.lease;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * How far each node has written the heartbeats it absorbed ({@code lease_writer}), for
 * readers outside this module (the nodes page): the sweep judges no lease later than the
 * position of a node that went silent.
 */
@Component
public class LeaseWriters {

	private final JdbcClient jdbc;

	LeaseWriters(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Each node's position: the moment through which it wrote its renewals, by node. */
	public Map<String, Instant> positions() {
		Map<String, Instant> positions = new TreeMap<>();
		jdbc.sql("SELECT node, renewals_through FROM lease_writer").query(rs -> {
			positions.put(rs.getString(1), rs.getTimestamp(2).toInstant());
		});
		return positions;
	}

}
