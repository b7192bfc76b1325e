package dev.ballast.release;

import dev.ballast.database.Reachability;
import dev.ballast.instance.WeightOverrides;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

/** The timer of the mode scheduler and of expiring weight edits. */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "ballast.release.scheduled", matchIfMissing = true)
class ReleaseSchedule {

	private static final Logger log = LoggerFactory.getLogger(ReleaseSchedule.class);

	private final ModeScheduler scheduler;

	private final WeightOverrides overrides;

	private final Reachability reachability;

	ReleaseSchedule(ModeScheduler scheduler, WeightOverrides overrides, Reachability reachability) {
		this.scheduler = scheduler;
		this.overrides = overrides;
		this.reachability = reachability;
	}

	@Scheduled(fixedDelayString = "${ballast.release.tick-interval:250ms}")
	void tick() {
		if (!reachability.reachable()) {
			// Steps are computed from their start time: the first tick afterwards catches
			// up.
			return;
		}
		try {
			scheduler.runDue();
			overrides.revertDue();
		}
		catch (DataAccessException | TransactionException ex) {
			// Steps are computed from their start time: the next tick catches up.
			log.warn("Mode steps not applied this tick: {}", ex.getMessage());
		}
	}

}
