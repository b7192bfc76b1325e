package dev.ballast.release;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.ballast.registry.Audit;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.Mode;
import dev.ballast.registry.ModeDetail;
import dev.ballast.registry.ServiceName;
import dev.ballast.watch.Subscribers;
import dev.ballast.weight.Ramp;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Component;

/**
 * Applies what is due for one locked instance (a ramp step, a drain confirmation, the end
 * of maintenance) and stores the next step, or removes it when the mode is reached. Each
 * step is computed from the time since the ramp started, so applying it twice changes
 * nothing the second time. A ramp whose configured weight changed since it was planned is
 * planned again from the effective weight of the moment
 * ({@link ScheduledStep#replanned}). The steps are the registry's own: the guard admitted
 * the mode when the operator asked for it.
 */
@Component
class ModeSteps {

	private final ModeSchedule schedule;

	private final Subscribers subscribers;

	private final DrainSettings drain;

	ModeSteps(ModeSchedule schedule, Subscribers subscribers, DrainSettings drain) {
		this.schedule = schedule;
		this.subscribers = subscribers;
		this.drain = drain;
	}

	Instance advance(LockedService locked, ScheduledStep step, Instance instance, Instant now) {
		return switch (step.kind()) {
			case DRAIN -> drainStep(locked, step, instance, now);
			case CONFIRM -> confirm(locked, step, instance, now);
			case WARM -> warmStep(locked, step, instance, now);
			case END_MAINTENANCE -> endMaintenance(locked, step, instance);
		};
	}

	private static Instance store(LockedService locked, Instance before, Instance after) {
		return locked.changes(Guard.none())
			.put(before, after)
			.commit(Audit.none("a mode step: the request that started the mode is audited, and the scheduler "
					+ "audits the step that reaches it"))
			.stored(before.id());
	}

	private Instance drainStep(LockedService locked, ScheduledStep step, Instance instance, Instant now) {
		if (instance.mode() != Mode.DRAINING) {
			return abandon(step, instance);
		}
		ScheduledStep planned = step.replanned(instance.weight(), instance.effectiveWeight(), Weight.ZERO, now);
		Ramp ramp = planned.ramp(Weight.ZERO);
		Duration elapsed = planned.elapsed(now);
		Instance stored = store(locked, instance,
				instance.inMode(Mode.DRAINING, ramp.next(elapsed, instance.effectiveWeight()),
						awaiting(instance.service(), planned.confirmDeadline())));
		if (ramp.finished(elapsed)) {
			List<String> live = subscribers.unconfirmed(instance.service(), stored.revision());
			return confirm(locked, planned.confirming(stored.revision(), live, now), stored, now);
		}
		schedule.put(planned.dueAt(planned.startedAt().plus(ramp.nextStepAfter(elapsed))));
		return stored;
	}

	/**
	 * A drain at weight 0 is complete when every live subscriber has acknowledged the
	 * revision where the weight became 0, or when the confirmation times out; then the
	 * instance view names the subscribers that never confirmed.
	 */
	private Instance confirm(LockedService locked, ScheduledStep step, Instance instance, Instant now) {
		if (instance.mode() != Mode.DRAINING) {
			return abandon(step, instance);
		}
		// Every subscriber live at weight 0 must confirm, even one dropped since for
		// going silent: that is the balancer most likely still sending traffic.
		Set<String> waiting = new TreeSet<>(subscribers.unconfirmed(instance.service(), step.zeroRevision()));
		waiting.addAll(step.awaiting());
		waiting.removeAll(subscribers.confirmed(instance.service(), step.awaiting(), step.zeroRevision()));
		boolean timedOut = !now.isBefore(step.confirmDeadline());
		if (!waiting.isEmpty() && !timedOut) {
			schedule.put(step.dueAt(now.plus(drain.confirmCheck())));
			// The instance names whom it still waits for, one change per acknowledgement.
			return store(locked, instance, instance.inMode(Mode.DRAINING, instance.effectiveWeight(),
					ModeDetail.awaiting(List.copyOf(waiting), step.confirmDeadline())));
		}
		schedule.remove(step.service(), step.instanceId());
		return store(locked, instance,
				instance.inMode(Mode.DRAINED, Weight.ZERO, ModeDetail.unconfirmed(List.copyOf(waiting))));
	}

	/**
	 * What a drain tells while it ramps down: every live subscriber must still
	 * acknowledge the weight 0 to come, and the drain completes by {@code deadline} at
	 * the latest; null when no subscriber is live.
	 */
	ModeDetail awaiting(ServiceName service, Instant deadline) {
		return ModeDetail.awaiting(subscribers.live(service), deadline);
	}

	private Instance warmStep(LockedService locked, ScheduledStep step, Instance instance, Instant now) {
		if (instance.mode() != Mode.WARMING) {
			return abandon(step, instance);
		}
		ScheduledStep planned = step.replanned(instance.weight(), instance.effectiveWeight(), instance.weight(), now);
		Ramp ramp = planned.ramp(instance.weight());
		Duration elapsed = planned.elapsed(now);
		if (ramp.finished(elapsed)) {
			schedule.remove(step.service(), step.instanceId());
			return store(locked, instance, instance.inMode(Mode.SERVING, instance.weight(), null));
		}
		Instance stored = store(locked, instance, instance.inMode(Mode.WARMING,
				ramp.next(elapsed, instance.effectiveWeight()), ModeDetail.warming(planned.endsAt())));
		schedule.put(planned.dueAt(planned.startedAt().plus(ramp.nextStepAfter(elapsed))));
		return stored;
	}

	private Instance endMaintenance(LockedService locked, ScheduledStep step, Instance instance) {
		schedule.remove(step.service(), step.instanceId());
		if (instance.mode() != Mode.MAINTENANCE) {
			return instance;
		}
		return store(locked, instance, instance.inMode(Mode.SERVING, instance.weight(), null));
	}

	/** The instance left the mode this step belonged to (another operator action). */
	private Instance abandon(ScheduledStep step, Instance instance) {
		schedule.remove(step.service(), step.instanceId());
		return instance;
	}

}
