package dev.ballast.release;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Changes;
import dev.ballast.registry.Committed;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Instance;
import dev.ballast.registry.InstanceId;
import dev.ballast.registry.InstanceView;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.Mode;
import dev.ballast.registry.ModeDetail;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.weight.Weight;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Operator requests to change an instance's mode, through the write path: the service's
 * lock makes the guard see every concurrent request's outcome, so of ten drains racing on
 * a service whose budget admits two, exactly two pass.
 */
@Service
class ModeChanges {

	private final WritePath path;

	private final ModeSchedule schedule;

	private final ModeSteps steps;

	private final ReleaseSettings settings;

	private final DrainSettings drain;

	private final Clock clock;

	ModeChanges(WritePath path, ModeSchedule schedule, ModeSteps steps, ReleaseSettings settings, DrainSettings drain,
			Clock clock) {
		this.path = path;
		this.schedule = schedule;
		this.steps = steps;
		this.settings = settings;
		this.drain = drain;
		this.clock = clock;
	}

	/** Starts draining one instance; a drain already under way is returned as it is. */
	@Transactional
	InstanceView drain(ServiceName service, InstanceId id, DrainRequest request) {
		return drainAll(service, List.of(id.value()), request.durationSeconds(), request.force()).getFirst();
	}

	/** Drains several instances, all or none with respect to the guard. */
	@Transactional
	List<InstanceView> drainBatch(ServiceName service, BatchDrainRequest request) {
		List<String> ids = new ArrayList<>(new LinkedHashSet<>(request.instances()));
		for (int i = 0; i < ids.size(); i++) {
			try {
				InstanceId.of(ids.get(i));
			}
			catch (RuntimeException ex) {
				throw InvalidRequestException.of("/instances/" + i, ex.getMessage());
			}
		}
		return drainAll(service, ids, request.durationSeconds(), request.force());
	}

	private List<InstanceView> drainAll(ServiceName service, List<String> ids, Integer durationSeconds, Boolean force) {
		LockedService locked = path.lock(service);
		locked.instances();
		List<Instance> targets = ids.stream().map(id -> locked.instance(InstanceId.of(id))).toList();
		Changes changes = locked.changes(Guard.of("draining", force, Guard.FORCE_FIELD));
		List<Instance> starting = targets.stream()
			.filter(target -> target.mode() != Mode.DRAINING && target.mode() != Mode.DRAINED)
			.toList();
		Duration duration = durationSeconds == null ? settings.defaultDrain() : Duration.ofSeconds(durationSeconds);
		Instant now = clock.instant();
		// The deadline is fixed now, by the node that took the request, whichever node
		// later steps the drain; the answer already says it and whom the drain waits for.
		Instant deadline = now.plus(duration).plus(drain.confirmTimeout());
		ModeDetail awaiting = starting.isEmpty() ? null : steps.awaiting(service, deadline);
		starting
			.forEach(target -> changes.put(target, target.inMode(Mode.DRAINING, target.effectiveWeight(), awaiting)));
		Map<String, InstanceView> results = new LinkedHashMap<>();
		changes.commit(Audit.entries((committed, trail) -> {
			// The drain's first steps are part of it: its entries say where they
			// leave each instance.
			targets.forEach(target -> results.put(target.id().value(), InstanceView.of(target)));
			for (Instance target : starting) {
				ScheduledStep step = new ScheduledStep(service.value(), target.id().value(), ScheduledStep.Kind.DRAIN,
						target.effectiveWeight().value(), now, duration, settings.stepInterval(), null, deadline, null,
						now, target.weight().value());
				results.put(target.id().value(),
						InstanceView.of(steps.advance(locked, step, committed.stored(target.id()), now)));
			}
			for (Instance target : targets) {
				trail.caller(
						AuditEntry
							.of(Action.INSTANCE_DRAIN, service.value(), target.id().value(), InstanceView.of(target),
									results.get(target.id().value()))
							.withDetail("durationSeconds", duration.toSeconds()));
			}
		}));
		return List.copyOf(results.values());
	}

	/**
	 * Brings an instance back, warming up; one serving or warming is returned as it is.
	 */
	@Transactional
	InstanceView serve(ServiceName service, InstanceId id, ServeRequest request) {
		LockedService locked = path.lock(service);
		Instance target = locked.instance(id);
		Duration warmup = request.warmupSeconds() == null ? settings.defaultWarmup()
				: Duration.ofSeconds(request.warmupSeconds());
		Instant now = clock.instant();
		locked.changes(Guard.none())
			.put(target,
					target.mode() == Mode.SERVING || target.mode() == Mode.WARMING ? target
							: serving(target, warmup, now))
			.commit(Audit.of(committed -> {
				// A warm-up's first step is part of the serve: its entry says where it
				// leaves the instance.
				Instance served = committed.stored(id);
				if (served.mode() == Mode.WARMING && target.mode() != Mode.WARMING) {
					served = steps.advance(locked,
							new ScheduledStep(service.value(), id.value(), ScheduledStep.Kind.WARM, 1, now, warmup,
									settings.stepInterval(), null, null, null, now, served.weight().value()),
							served, now);
				}
				return AuditEntry
					.of(Action.INSTANCE_SERVE, service.value(), id.value(), InstanceView.of(target),
							InstanceView.of(served))
					.withDetail("warmupSeconds", warmup.toSeconds());
			}));
		return InstanceView.of(locked.instance(id));
	}

	/** The instance back in rotation: at once, or warming up from weight 1. */
	private Instance serving(Instance target, Duration warmup, Instant now) {
		schedule.remove(target.service().value(), target.id().value());
		if (warmup.isZero() || target.weight().value() == 0) {
			return target.inMode(Mode.SERVING, target.weight(), null);
		}
		return target.inMode(Mode.WARMING, Weight.of(1), ModeDetail.warming(now.plus(warmup)));
	}

	/** Takes an instance out at once, for a reason, optionally until a time. */
	@Transactional
	InstanceView maintenance(ServiceName service, InstanceId id, MaintenanceRequest request) {
		Instant now = clock.instant();
		if (request.until() != null && !request.until().isAfter(now)) {
			throw InvalidRequestException.of("/until", "until must be in the future; got " + request.until());
		}
		LockedService locked = path.lock(service);
		Instance target = locked.instance(id);
		ModeDetail detail = ModeDetail.maintenance(request.reason(), request.until());
		Instance after = target.mode() == Mode.MAINTENANCE && detail.equals(target.detail()) ? target
				: target.inMode(Mode.MAINTENANCE, Weight.ZERO, detail);
		Committed committed = locked.changes(Guard.of("maintenance of", request.force(), Guard.FORCE_FIELD))
			.put(target, after)
			.commit(Audit.of(done -> AuditEntry.of(Action.INSTANCE_MAINTENANCE, service.value(), id.value(),
					InstanceView.of(target), InstanceView.of(done.stored(id)))));
		if (after != target) {
			schedule.remove(service.value(), id.value());
			if (request.until() != null) {
				schedule.put(new ScheduledStep(service.value(), id.value(), ScheduledStep.Kind.END_MAINTENANCE, 0, now,
						Duration.ZERO, settings.stepInterval(), null, null, null, request.until(), null));
			}
		}
		return InstanceView.of(committed.stored(id));
	}

}
