package dev.ballast.release;

import dev.ballast.database.PeriodicJobs;
import dev.ballast.instance.WeightOverrides;

import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * The timer of the mode scheduler and of expiring weight edits, every
 * {@code ballast.release.tick-interval}; {@code ballast.release.scheduled=false} leaves
 * it off (tests drive it).
 */
@Component
@EnableScheduling
class ReleaseSchedule implements SchedulingConfigurer {

	private final ModeScheduler scheduler;

	private final WeightOverrides overrides;

	private final PeriodicJobs jobs;

	private final ReleaseSettings settings;

	ReleaseSchedule(ModeScheduler scheduler, WeightOverrides overrides, PeriodicJobs jobs, ReleaseSettings settings) {
		this.scheduler = scheduler;
		this.overrides = overrides;
		this.jobs = jobs;
		this.settings = settings;
	}

	@Override
	public void configureTasks(ScheduledTaskRegistrar registrar) {
		if (settings.scheduled()) {
			registrar.addFixedDelayTask(this::tick, settings.tickInterval());
		}
	}

	/**
	 * Skipped while the database is unreachable, and retried when a tick fails: steps are
	 * computed from their start time, so the first tick afterwards catches up.
	 */
	void tick() {
		jobs.whenReachable("Mode schedule", () -> {
			scheduler.runDue();
			overrides.revertDue();
		});
	}

}
