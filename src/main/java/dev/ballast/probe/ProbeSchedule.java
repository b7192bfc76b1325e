package dev.ballast.probe;

import dev.ballast.database.PeriodicJobs;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The membership beat, which also hands out the checks. While the database is unreachable
 * it does not run, and the prober stops probing once its last beat is too old.
 */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.checks.scheduled", matchIfMissing = true)
class ProbeSchedule {

	private final Prober prober;

	private final PeriodicJobs jobs;

	ProbeSchedule(Prober prober, PeriodicJobs jobs) {
		this.prober = prober;
		this.jobs = jobs;
	}

	@Scheduled(fixedDelayString = "${ballast.checks.membership-interval:1s}")
	void beat() {
		jobs.whenReachable("Check membership", prober::refresh);
	}

}
