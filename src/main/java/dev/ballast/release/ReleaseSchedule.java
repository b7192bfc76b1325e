package dev.ballast.release;

import dev.ballast.database.PeriodicJobs;
import dev.ballast.instance.WeightOverrides;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The timer of the mode scheduler and of expiring weight edits. */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.release.scheduled", matchIfMissing = true)
class ReleaseSchedule {

	private final ModeScheduler scheduler;

	private final WeightOverrides overrides;

	private final PeriodicJobs jobs;

	ReleaseSchedule(ModeScheduler scheduler, WeightOverrides overrides, PeriodicJobs jobs) {
		this.scheduler = scheduler;
		this.overrides = overrides;
		this.jobs = jobs;
	}

	/**
	 * Skipped while the database is unreachable, and retried when a tick fails: steps are
	 * computed from their start time, so the first tick afterwards catches up.
	 */
	@Scheduled(fixedDelayString = "${ballast.release.tick-interval:250ms}")
	void tick() {
		jobs.whenReachable("Mode schedule", () -> {
			scheduler.runDue();
			overrides.revertDue();
		});
	}

}
