package dev.ballast.release;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.registry.Audit;
import dev.ballast.registry.Changes;
import dev.ballast.registry.Guard;
import dev.ballast.registry.Health;
import dev.ballast.registry.Instance;
import dev.ballast.registry.LockedService;
import dev.ballast.registry.ServiceName;
import dev.ballast.registry.WritePath;
import dev.ballast.web.ConflictException;
import dev.ballast.web.GuardBreachException;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.NotFoundException;
import dev.ballast.weight.UnroutableBudget;
import dev.ballast.weight.Weight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Traffic shifts between two groups of instances. At each step the {@code to} group gets
 * exactly that percentage of the weight that serves in the two groups
 * ({@link ShiftWeights}), shared within each group in proportion to the members' weights
 * before the release, and the shares stay exact while members leave or rejoin rotation
 * ({@link ReleaseShares}). Weights are set as configured weights, so every step is an
 * ordinary change event; abort puts every one back, guarded like any action that takes
 * capacity out of rotation.
 */
@Service
class Releases {

	private static final Logger log = LoggerFactory.getLogger(Releases.class);

	private final WritePath path;

	private final ReleaseStore store;

	private final Clock clock;

	private final ReleaseShares shares;

	Releases(WritePath path, ReleaseStore store, Clock clock, ReleaseShares shares) {
		this.path = path;
		this.store = store;
		this.clock = clock;
		this.shares = shares;
	}

	@Transactional
	ReleaseView start(ServiceName service, ReleaseRequest request) {
		request.checkSteps();
		LockedService locked = path.lock(service);
		store.underWay(service.value()).ifPresent(current -> {
			throw new ConflictException(
					("release %d of %s is under way (%s at %d%%); advance, promote or abort it " + "first")
						.formatted(current.id(), service, current.state(), current.percent()));
		});
		List<Instance> from = matching(locked, request.from());
		List<Instance> to = matching(locked, request.to());
		List<String> both = from.stream().filter(to::contains).map(i -> i.id().value()).toList();
		if (!both.isEmpty()) {
			throw InvalidRequestException.of("/to", "to selects instances that from selects too: " + both);
		}
		if (from.isEmpty() || to.isEmpty()) {
			throw new ConflictException("the %s selector matches no instance of %s; nothing to shift"
				.formatted(from.isEmpty() ? "from" : "to", service));
		}
		if (capable(to).isEmpty()) {
			throw new ConflictException("no instance of the to group can take traffic (all are critical, drained, "
					+ "draining or in maintenance): " + ids(to));
		}
		long total = 0;
		Map<String, Weight> original = new LinkedHashMap<>();
		for (Instance instance : concat(from, to)) {
			total += instance.heldOut() ? 0 : instance.weight().value();
			original.put(instance.id().value(), instance.weight());
		}
		if (total == 0) {
			throw new ConflictException("the two groups have no weight that serves to shift");
		}
		Instant now = clock.instant();
		int interval = request.stepIntervalSeconds() == null ? 0 : request.stepIntervalSeconds();
		Release release = store.insert(new Release(0, service.value(), request.from(), request.to(), ids(from), ids(to),
				original, total, List.copyOf(request.steps()), interval, 0, Release.State.ACTIVE, null, null, now));
		shares.changed(release);
		return ReleaseView.of(moveTo(locked, release, 0, 0, request.force(), now, audited(Action.RELEASE_START, null)));
	}

	@Transactional
	ReleaseView advance(ServiceName service, long id, boolean force) {
		LockedService locked = path.lock(service);
		Release release = underWay(service, id);
		return ReleaseView
			.of(advance(locked, release, force, clock.instant(), audited(Action.RELEASE_ADVANCE, release)));
	}

	/**
	 * Takes a release's next step, or pauses it when its new group cannot take traffic.
	 * @param audit the audit of the release as the step leaves it
	 */
	private Release advance(LockedService locked, Release release, boolean force, Instant now,
			Function<Release, Audit> audit) {
		if (capable(members(locked, release.toIds())).isEmpty()) {
			Release paused = pause(release, now);
			locked.changes(Guard.none()).commit(audit.apply(paused));
			return paused;
		}
		return moveTo(locked, release, release.percent(), Math.min(release.step() + 1, release.steps().size() - 1),
				force, now, audit);
	}

	@Transactional
	ReleaseView promote(ServiceName service, long id, boolean force) {
		LockedService locked = path.lock(service);
		Release release = underWay(service, id);
		return ReleaseView.of(moveTo(locked, release, release.percent(), release.steps().size() - 1, force,
				clock.instant(), audited(Action.RELEASE_PROMOTE, release)));
	}

	/**
	 * Puts every weight of both groups back as it was before the release (or as it was
	 * set by hand since), in one transaction. Guarded like every action: weight given
	 * back to instances held out (in maintenance, draining) would be capacity out of
	 * rotation.
	 */
	@Transactional
	ReleaseView abort(ServiceName service, long id, boolean force) {
		LockedService locked = path.lock(service);
		Release release = underWay(service, id);
		Changes restore = locked.changes(Guard.of("aborting release %d".formatted(id), force, Guard.FORCE_PARAMETER))
			.shifting();
		for (Instance instance : locked.instances()) {
			Weight before = release.original().get(instance.id().value());
			if (before != null && !before.equals(instance.weight())) {
				restore.put(instance, instance.shiftedTo(before));
			}
		}
		Release aborted = release.at(release.step(), Release.State.ABORTED, null, null);
		restore.commit(audited(Action.RELEASE_ABORT, release).apply(aborted));
		store.update(aborted, clock.instant());
		shares.changed(aborted);
		log.info("Release {} of {} aborted at {}%: weights restored", id, service, release.percent());
		return ReleaseView.of(aborted);
	}

	/**
	 * A caller's action on a release, audited with the release as the action leaves it.
	 */
	private static Function<Release, Audit> audited(Action action, Release before) {
		return after -> Audit.of(committed -> entry(action, before, after));
	}

	private static AuditEntry entry(Action action, Release before, Release after) {
		return AuditEntry
			.of(action, after.service(), null, before == null ? null : ReleaseView.of(before), ReleaseView.of(after))
			.withDetail("release", after.id());
	}

	@Transactional(readOnly = true)
	ReleaseView get(ServiceName service, long id) {
		return store.find(service.value(), id).map(ReleaseView::of).orElseThrow(() -> notFound(service, id));
	}

	@Transactional(readOnly = true)
	List<ReleaseView> list(ServiceName service) {
		return store.list(service.value()).stream().map(ReleaseView::of).toList();
	}

	/**
	 * Advances the releases whose automatic step is due; returns how many. Runs inside
	 * the scheduler's transaction, and checks each release is still due once it holds its
	 * lock, so a step is never taken twice.
	 */
	@Transactional
	int advanceDue() {
		int advanced = 0;
		Instant now = clock.instant();
		for (Map.Entry<String, Long> due : store.due(now)) {
			LockedService locked = path.lock(ServiceName.of(due.getKey()));
			Release release = store.lock(due.getKey(), due.getValue()).orElse(null);
			if (release == null || release.state() != Release.State.ACTIVE || release.nextStepAt() == null
					|| release.nextStepAt().isAfter(now)) {
				continue;
			}
			try {
				advance(locked, release, false, now,
						after -> Audit.system(committed -> entry(
								after.state() == Release.State.PAUSED ? Action.RELEASE_PAUSE : Action.RELEASE_ADVANCE,
								release, after)));
			}
			catch (ConflictException | GuardBreachException ex) {
				// Refused before anything was stored: the pause is recorded over no
				// change.
				Release paused = pause(release, now, ex.getMessage());
				locked.changes(Guard.none())
					.commit(Audit.system(committed -> entry(Action.RELEASE_PAUSE, release, paused)));
			}
			advanced++;
		}
		return advanced;
	}

	/**
	 * Moves a release to a step, storing its members' weights there.
	 * @param audit the audit of the release as the step leaves it
	 */
	private Release moveTo(LockedService locked, Release release, int percentBefore, int step, Boolean force,
			Instant now, Function<Release, Audit> audit) {
		int percent = release.steps().get(step);
		List<Instance> to = members(locked, release.toIds());
		List<Instance> from = members(locked, release.fromIds());
		Map<String, Instance> all = new LinkedHashMap<>();
		concat(from, to).forEach(instance -> all.put(instance.id().value(), instance));
		ReleaseShares.Shared shared = ReleaseShares.shared(release, all, percent);
		Changes changes = locked
			.changes(Guard.of("release %d at %d%%".formatted(release.id(), percent), force, howToForce(percentBefore)))
			.scope(capacity(release, to, from, percentBefore, percent))
			.shifting();
		for (Instance instance : all.values()) {
			Weight weight = shared.weights().get(instance.id().value());
			// A member whose weight stays keeps what it stands for: one held at 0 by hand
			// keeps holding its capacity out.
			if (!weight.equals(instance.weight())) {
				changes.put(instance, instance.shiftedTo(weight));
			}
		}
		boolean done = percent == 100;
		Instant next = done || release.stepIntervalSeconds() == 0 ? null
				: now.plusSeconds(release.stepIntervalSeconds());
		Release moved = release.at(step, done ? Release.State.COMPLETED : Release.State.ACTIVE, null, next)
			.sharing(release.original(), shared.total());
		changes.commit(audit.apply(moved));
		store.update(moved, now);
		shares.changed(moved);
		return moved;
	}

	/**
	 * The release's scope in the guard: the from group's weights before the release are
	 * the load it moves, and the to group carries its share of it with the weights its
	 * capable members had before the release.
	 */
	private static UnroutableBudget.Scope capacity(Release release, List<Instance> to, List<Instance> from,
			int percentBefore, int percentAfter) {
		long toCapable = capable(to).stream().mapToLong(i -> release.original().get(i.id().value()).value()).sum();
		long fromNominal = from.stream().mapToLong(i -> release.original().get(i.id().value()).value()).sum();
		List<String> incapable = to.stream().filter(i -> !capable(to).contains(i)).map(i -> i.id().value()).toList();
		return UnroutableBudget.shift("release " + release.id(), fromNominal, toCapable, percentBefore, percentAfter,
				incapable);
	}

	/** A release starts with a body of its own; its later steps have none. */
	private static String howToForce(int percentBefore) {
		return percentBefore == 0 ? Guard.FORCE_FIELD : Guard.FORCE_PARAMETER;
	}

	private Release pause(Release release, Instant now) {
		return pause(release, now, "no instance of the to group can take traffic: " + release.toIds());
	}

	private Release pause(Release release, Instant now, String reason) {
		Release paused = release.at(release.step(), Release.State.PAUSED, reason, null);
		store.update(paused, now);
		shares.changed(paused);
		log.warn("Release {} of {} paused: {}", release.id(), release.service(), reason);
		return paused;
	}

	private static List<Instance> matching(LockedService locked, Map<String, String> selector) {
		return locked.instances()
			.stream()
			.filter(instance -> instance.metadata().entries().entrySet().containsAll(selector.entrySet()))
			.toList();
	}

	private static List<Instance> members(LockedService locked, List<String> ids) {
		return locked.instances().stream().filter(instance -> ids.contains(instance.id().value())).toList();
	}

	/** Members that can take traffic: passing and not taken out by an operator. */
	private static List<Instance> capable(List<Instance> group) {
		return group.stream().filter(i -> i.health() == Health.PASSING && !i.heldOut()).toList();
	}

	private static List<String> ids(List<Instance> instances) {
		return instances.stream().map(instance -> instance.id().value()).toList();
	}

	private static List<Instance> concat(List<Instance> a, List<Instance> b) {
		List<Instance> all = new ArrayList<>(a);
		all.addAll(b);
		return all;
	}

	private Release underWay(ServiceName service, long id) {
		Release release = store.lock(service.value(), id).orElseThrow(() -> notFound(service, id));
		if (!release.underWay()) {
			throw new ConflictException("release %d of %s is %s".formatted(id, service, release.state()));
		}
		return release;
	}

	private static NotFoundException notFound(ServiceName service, long id) {
		return new NotFoundException("release %d of service %s does not exist".formatted(id, service));
	}

}
