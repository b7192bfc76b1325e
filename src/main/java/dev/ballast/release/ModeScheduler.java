package dev.ballast.release;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Applies due steps of the mode schedule. Its transaction first takes an advisory lock,
 * so one node at a time runs it, and takes the due rows with SKIP LOCKED; a step, its
 * change event and the next row commit together. After a restart, or when the node that
 * ran it is gone, the next node to tick picks the schedule up where it was. A step that
 * ends a mode (a drain complete, a warm-up done, maintenance over) is audited as the
 * registry's own change; the ramp steps between are not, being many and foretold by the
 * request that started them.
 */
@Component
class ModeScheduler {

	/** Steps applied per tick; the rest wait for the next tick. */
	private static final int BATCH = 200;

	private final ModeSchedule schedule;

	private final ModeSteps steps;

	private final WritePath path;

	private final Clock clock;

	private final Releases releases;

	ModeScheduler(ModeSchedule schedule, ModeSteps steps, WritePath path, Clock clock, Releases releases) {
		this.releases = releases;
		this.schedule = schedule;
		this.steps = steps;
		this.path = path;
		this.clock = clock;
	}

	/** Returns how many steps were applied. */
	@Transactional
	int runDue() {
		if (!schedule.tryLead()) {
			return 0;
		}
		Instant now = clock.instant();
		List<ScheduledStep> due = schedule.due(now, BATCH);
		for (ScheduledStep step : due) {
			Optional<LockedService> locked = path.lockIfPresent(ServiceName.of(step.service()));
			locked.flatMap(service -> service.find(InstanceId.of(step.instanceId())))
				.ifPresentOrElse(instance -> apply(locked.get(), step, instance, now),
						() -> schedule.remove(step.service(), step.instanceId()));
		}
		return due.size() + releases.advanceDue();
	}

	private void apply(LockedService locked, ScheduledStep step, Instance instance, Instant now) {
		Instance after = steps.advance(locked, step, instance, now);
		if (after.mode() == instance.mode()) {
			return;
		}
		Action ended = switch (step.kind()) {
			case DRAIN, CONFIRM -> Action.INSTANCE_DRAINED;
			case WARM -> Action.INSTANCE_WARMED;
			case END_MAINTENANCE -> Action.INSTANCE_MAINTENANCE_END;
		};
		// The steps were stored as the mode's; that the mode was reached is the
		// registry's
		// own act, recorded over no further change.
		locked.changes(Guard.none())
			.commit(Audit.system(committed -> AuditEntry.of(ended, step.service(), step.instanceId(),
					InstanceView.of(instance), InstanceView.of(after))));
	}

}
