package dev.ballast.lease;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The timers: flush absorbed heartbeats, then sweep expired leases. */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.lease.scheduled", matchIfMissing = true)
class LeaseSchedule {

	private static final Logger log = LoggerFactory.getLogger(LeaseSchedule.class);

	private final Heartbeats heartbeats;

	private final LeaseSweeper sweeper;

	LeaseSchedule(Heartbeats heartbeats, LeaseSweeper sweeper) {
		this.heartbeats = heartbeats;
		this.sweeper = sweeper;
	}

	@Scheduled(fixedDelayString = "${ballast.lease.flush-interval:1s}")
	void flush() {
		heartbeats.flush();
	}

	@Scheduled(fixedDelayString = "${ballast.lease.sweep-interval:5s}",
			initialDelayString = "${ballast.lease.sweep-interval:5s}")
	void sweep() {
		try {
			// This node's own buffered renewals go in first; other nodes' are covered by
			// the flush allowance.
			heartbeats.flush();
			sweeper.sweep();
		}
		catch (DataAccessException ex) {
			// The next sweep sees the gap in recorded ticks and extends leases by it.
			log.warn("Lease sweep failed: {}", ex.getMessage());
		}
	}

}
