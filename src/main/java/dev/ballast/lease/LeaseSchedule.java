package dev.ballast.lease;

import dev.ballast.database.PeriodicJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The timers: flush absorbed heartbeats, then sweep expired leases. While the database is
 * unreachable neither runs: heartbeats stay absorbed, and no lease is judged until they
 * are written; the first sweep afterwards extends leases by the gap (see
 * {@link SweepGap}). Their intervals are {@link LeaseSettings}', and
 * {@code ballast.lease.scheduled=false} leaves them off (tests drive them).
 */
@Component
@EnableScheduling
class LeaseSchedule implements SchedulingConfigurer {

	private static final Logger log = LoggerFactory.getLogger(LeaseSchedule.class);

	private final Heartbeats heartbeats;

	private final LeaseSweeper sweeper;

	private final PeriodicJobs jobs;

	private final LeaseSettings settings;

	LeaseSchedule(Heartbeats heartbeats, LeaseSweeper sweeper, PeriodicJobs jobs, LeaseSettings settings) {
		this.heartbeats = heartbeats;
		this.sweeper = sweeper;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(this::flush, settings.flushInterval());
			registrar
				.addFixedDelayTask(new FixedDelayTask(this::sweep, settings.sweepInterval(), settings.sweepInterval()));
		}
	}

	void flush() {
		jobs.whenReachable("Heartbeat flush", heartbeats::flush);
	}

	/**
	 * A failed sweep is retried by the next: it sees the gap in recorded ticks and
	 * extends leases by it.
	 */
	void sweep() {
		jobs.whenReachable("Lease sweep", () -> {
			// The flush timer waits until the sweep's transaction has committed, so it
			// never queues on the row locks the sweep holds until then.
			if (!heartbeats.exclusively(this::flushAndSweep)) {
				log.warn("Lease sweep skipped: a lease write of this node did not finish in time");
			}
		});
	}

	private void flushAndSweep() {
		// This node's own buffered renewals go in first; other nodes' are covered by the
		// flush allowance. A node that cannot write them judges no lease.
		if (heartbeats.flush()) {
			sweeper.sweep();
		}
	}

}
