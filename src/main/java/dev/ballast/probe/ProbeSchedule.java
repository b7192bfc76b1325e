package dev.ballast.probe;

import dev.ballast.database.PeriodicJobs;
import dev.ballast.registry.CheckSettings;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The membership beat, which also hands out the checks. While the database is unreachable
 * it does not run, and the prober stops probing once its last beat is too old. Every
 * {@code ballast.checks.membership-interval}; {@code ballast.checks.scheduled=false}
 * leaves it off (tests drive it).
 */
@Component
@EnableScheduling
class ProbeSchedule implements SchedulingConfigurer {

	private final Prober prober;

	private final PeriodicJobs jobs;

	private final CheckSettings settings;

	ProbeSchedule(Prober prober, PeriodicJobs jobs, CheckSettings settings) {
		this.prober = prober;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(this::beat, settings.membershipInterval());
		}
	}

	void beat() {
		jobs.whenReachable("Check membership", prober::refresh);
	}

}
