package dev.ballast.registry;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;

import dev.ballast.weight.CapacityPeak;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code capacity_peak} table: each scope's capacity before something took part of it
 * away, while it counts in the guard's base. Read and written only under the service's
 * row lock, by {@link Changes}.
 */
@Repository
class CapacityPeaks {

	private final JdbcClient jdbc;

	CapacityPeaks(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** The service's peaks that still count at {@code now}. */
	List<CapacityPeak> live(ServiceName service, Instant now) {
		return jdbc.sql("SELECT scope, capacity, until, cause FROM capacity_peak WHERE service = ? AND until > ?")
			.params(service.value(), Timestamp.from(now))
			.query((rs, row) -> new CapacityPeak(rs.getString("scope"), rs.getLong("capacity"),
					rs.getTimestamp("until").toInstant(), rs.getString("cause")))
			.list();
	}

	/**
	 * Keeps {@code added}, forgetting what no longer counts at {@code now} and what an
	 * added peak covers (no higher and no longer): a scope keeps few rows however often
	 * its capacity falls.
	 */
	void add(ServiceName service, List<CapacityPeak> added, Instant now) {
		for (CapacityPeak peak : added) {
			jdbc.sql("""
					DELETE FROM capacity_peak
					 WHERE service = ? AND (until <= ? OR (scope = ? AND capacity <= ? AND until <= ?))""")
				.params(service.value(), Timestamp.from(now), peak.scope(), peak.capacity(),
						Timestamp.from(peak.until()))
				.update();
			jdbc.sql("INSERT INTO capacity_peak (service, scope, capacity, until, cause) VALUES (?, ?, ?, ?, ?)")
				.params(service.value(), peak.scope(), peak.capacity(), Timestamp.from(peak.until()),
						peak.cause().length() > 512 ? peak.cause().substring(0, 509) + "..." : peak.cause())
				.update();
		}
	}

}
