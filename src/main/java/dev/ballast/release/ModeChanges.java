package dev.ballast.release;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;
import dev.ballast.instance.Instance;
import dev.ballast.instance.InstanceId;
import dev.ballast.instance.InstanceView;
import dev.ballast.instance.InstanceWrites;
import dev.ballast.instance.InstanceWrites.LockedService;
import dev.ballast.instance.Mode;
import dev.ballast.instance.ModeDetail;
import dev.ballast.instance.ServiceName;
import dev.ballast.web.GuardBreachException;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.NotFoundException;
import dev.ballast.weight.UnroutableBudget;
import dev.ballast.weight.UnroutableBudget.Breach;
import dev.ballast.weight.Weight;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Operator requests to change an instance's mode. Each locks the service row and all its
 * instances first, so the guard sees every concurrent request's outcome: of ten drains
 * racing on a service whose budget admits two, exactly two pass.
 */
@Service
class ModeChanges {

	private static final Logger log = LoggerFactory.getLogger(ModeChanges.class);

	private final InstanceWrites writes;

	private final ModeSchedule schedule;

	private final ModeSteps steps;

	private final ReleaseSettings settings;

	private final DrainSettings drain;

	private final MeterRegistry meters;

	private final AuditTrail audit;

	private final Clock clock;

	ModeChanges(InstanceWrites writes, ModeSchedule schedule, ModeSteps steps, ReleaseSettings settings,
			DrainSettings drain, MeterRegistry meters, AuditTrail audit, Clock clock) {
		this.drain = drain;
		this.audit = audit;
		this.writes = writes;
		this.schedule = schedule;
		this.steps = steps;
		this.settings = settings;
		this.meters = meters;
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
		LockedService locked = lock(service);
		Map<String, Instance> byId = locked.instances()
			.stream()
			.collect(Collectors.toMap(instance -> instance.id().value(), Function.identity()));
		List<Instance> targets = new ArrayList<>();
		for (String id : ids) {
			Instance target = byId.get(id);
			if (target == null) {
				throw new NotFoundException("instance %s of service %s is not registered".formatted(id, service));
			}
			targets.add(target);
		}
		List<Instance> starting = targets.stream()
			.filter(target -> target.mode() != Mode.DRAINING && target.mode() != Mode.DRAINED)
			.toList();
		boolean overridden = guard(locked, starting, Boolean.TRUE.equals(force), "draining");
		Duration duration = durationSeconds == null ? settings.defaultDrain() : Duration.ofSeconds(durationSeconds);
		Instant now = clock.instant();
		Map<String, InstanceView> results = new LinkedHashMap<>();
		targets.forEach(target -> results.put(target.id().value(), InstanceView.of(target)));
		for (Instance target : starting) {
			Instance draining = writes.change(target, target.inMode(Mode.DRAINING, target.effectiveWeight(), null));
			// The deadline is fixed now, by the node that took the request, whichever
			// node
			// later steps the drain.
			ScheduledStep step = new ScheduledStep(service.value(), target.id().value(), ScheduledStep.Kind.DRAIN,
					target.effectiveWeight().value(), now, duration, settings.stepInterval(), null,
					now.plus(duration).plus(drain.confirmTimeout()), null, now);
			results.put(target.id().value(), InstanceView.of(steps.advance(step, draining, now)));
		}
		for (Instance target : targets) {
			audit.record(AuditEntry
				.of(Action.INSTANCE_DRAIN, service.value(), target.id().value(), InstanceView.of(target),
						results.get(target.id().value()))
				.withForce(Boolean.TRUE.equals(force))
				.withDetail("durationSeconds", duration.toSeconds())
				.withDetail("guardOverridden", overridden ? true : null));
		}
		return List.copyOf(results.values());
	}

	/**
	 * Brings an instance back, warming up; one serving or warming is returned as it is.
	 */
	@Transactional
	InstanceView serve(ServiceName service, InstanceId id, ServeRequest request) {
		Instance target = lockOne(service, id);
		Duration warmup = request.warmupSeconds() == null ? settings.defaultWarmup()
				: Duration.ofSeconds(request.warmupSeconds());
		InstanceView served = InstanceView.of(serve(target, warmup));
		audit.record(AuditEntry.of(Action.INSTANCE_SERVE, service.value(), id.value(), InstanceView.of(target), served)
			.withDetail("warmupSeconds", warmup.toSeconds()));
		return served;
	}

	private Instance serve(Instance target, Duration warmup) {
		if (target.mode() == Mode.SERVING || target.mode() == Mode.WARMING) {
			return target;
		}
		ServiceName service = target.service();
		InstanceId id = target.id();
		schedule.remove(service.value(), id.value());
		if (warmup.isZero() || target.weight().value() == 0) {
			return writes.change(target, target.inMode(Mode.SERVING, target.weight(), null));
		}
		Instant now = clock.instant();
		Instance warming = writes.change(target, target.inMode(Mode.WARMING, Weight.of(1), null));
		ScheduledStep step = new ScheduledStep(service.value(), id.value(), ScheduledStep.Kind.WARM, 1, now, warmup,
				settings.stepInterval(), null, null, null, now);
		return steps.advance(step, warming, now);
	}

	/** Takes an instance out at once, for a reason, optionally until a time. */
	@Transactional
	InstanceView maintenance(ServiceName service, InstanceId id, MaintenanceRequest request) {
		Instant now = clock.instant();
		if (request.until() != null && !request.until().isAfter(now)) {
			throw InvalidRequestException.of("/until", "until must be in the future; got " + request.until());
		}
		LockedService locked = lock(service);
		Instance target = locked.instances()
			.stream()
			.filter(instance -> instance.id().equals(id))
			.findFirst()
			.orElseThrow(
					() -> new NotFoundException("instance %s of service %s is not registered".formatted(id, service)));
		ModeDetail detail = ModeDetail.maintenance(request.reason(), request.until());
		boolean force = Boolean.TRUE.equals(request.force());
		AuditEntry entry = AuditEntry
			.of(Action.INSTANCE_MAINTENANCE, service.value(), id.value(), InstanceView.of(target), null)
			.withForce(force);
		if (target.mode() == Mode.MAINTENANCE && detail.equals(target.detail())) {
			audit.record(entry.withAfter(InstanceView.of(target)));
			return InstanceView.of(target);
		}
		boolean overridden = guard(locked, List.of(target), force, "maintenance of");
		schedule.remove(service.value(), id.value());
		Instance stored = writes.change(target, target.inMode(Mode.MAINTENANCE, Weight.ZERO, detail));
		if (request.until() != null) {
			schedule.put(new ScheduledStep(service.value(), id.value(), ScheduledStep.Kind.END_MAINTENANCE, 0, now,
					Duration.ZERO, settings.stepInterval(), null, null, null, request.until()));
		}
		audit.record(entry.withAfter(InstanceView.of(stored)).withDetail("guardOverridden", overridden ? true : null));
		return InstanceView.of(stored);
	}

	/** Refuses a breach of the budget unless forced; returns whether it forced one. */
	private boolean guard(LockedService locked, List<Instance> taken, boolean force, String action) {
		Set<String> proposed = taken.stream().map(instance -> instance.id().value()).collect(Collectors.toSet());
		List<UnroutableBudget.Member> members = locked.instances()
			.stream()
			.map(instance -> new UnroutableBudget.Member(instance.id().value(), instance.zone(),
					instance.weight().value(), instance.heldOut()))
			.toList();
		int limit = locked.settings().maxUnroutablePercent();
		Optional<Breach> found = UnroutableBudget.check(members, proposed, limit);
		if (found.isEmpty()) {
			return false;
		}
		Breach breach = found.get();
		String service = locked.settings().name().value();
		String detail = explain(service, action, proposed, breach);
		if (!force) {
			throw new GuardBreachException(detail, figures(breach));
		}
		Counter.builder("ballast.guard.forced")
			.description("Operator actions that overrode the unroutable budget with force")
			.tag("service", service)
			.register(meters)
			.increment();
		log.warn("FORCED past the guard: {}", detail);
		return true;
	}

	private static String explain(String service, String action, Set<String> proposed, Breach breach) {
		String scope = breach.scope().equals("service") ? "service " + service : breach.scope() + " of " + service;
		return ("%s %s would make %s%% of the nominal weight of %s unroutable (limit %d%%, now %s%%); "
				+ "the budget is held by %s. Wait until they serve again, or send \"force\": true")
			.formatted(action, String.join(", ", proposed.stream().sorted().toList()), breach.resultingPercent(), scope,
					breach.limitPercent(), breach.currentPercent(),
					breach.holders().isEmpty() ? "no instance" : String.join(", ", breach.holders()));
	}

	private static Map<String, Object> figures(Breach breach) {
		Map<String, Object> figures = new LinkedHashMap<>();
		figures.put("scope", breach.scope());
		figures.put("limitPercent", breach.limitPercent());
		figures.put("currentPercent", breach.currentPercent());
		figures.put("resultingPercent", breach.resultingPercent());
		figures.put("nominalWeight", breach.nominalWeight());
		figures.put("unroutableWeight", breach.unroutableWeight());
		figures.put("resultingWeight", breach.resultingWeight());
		figures.put("holders", breach.holders());
		return figures;
	}

	private LockedService lock(ServiceName service) {
		return writes.lock(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
	}

	private Instance lockOne(ServiceName service, InstanceId id) {
		return writes.lock(service, id)
			.orElseThrow(
					() -> new NotFoundException("instance %s of service %s is not registered".formatted(id, service)));
	}

}
