package dev.ballast.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.ballast.registry.Admission.Change;
import dev.ballast.weight.BudgetOracle;
import dev.ballast.weight.CapacityPeak;
import dev.ballast.weight.EjectionCap;
import dev.ballast.weight.LocalityPolicy;
import dev.ballast.weight.LocalityView;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.Ramp;
import dev.ballast.weight.ShiftWeights;
import dev.ballast.weight.UnroutableBudget;
import dev.ballast.weight.Weight;
import dev.ballast.weight.WeightPolicy;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The instance state machine against a model: random sequences of registrations with
 * unequal weights (some reporting themselves critical), re-registrations, weight edits,
 * zone moves, drains, maintenance, serve with and without warm-up, releases (start,
 * advance, promote, abort, with canary and blue/green steps), health reports that fail
 * and pass, lease expiries, deregistrations and time passing (ramp steps, the capacity
 * window), forced or not, under every kind of budget. Each action is composed of the same
 * pure pieces the write path composes ({@link Instance}'s transitions, {@link Admission},
 * {@link EjectionCap}, {@link Ramp}, {@link ShiftWeights}); after every step the state is
 * checked against an oracle written from the definitions in docs/api.md, not from the
 * code:
 * <ul>
 * <li>{@code 0 <= effective <= configured} for every instance;</li>
 * <li>every ramp moves monotonically toward its target and never passes it;</li>
 * <li>no accepted unforced guarded step leaves more capacity out than the budget allows,
 * in the service and in every zone, unless it took nothing more: out is the base (the
 * highest capacity within the window, capacity moved by a shift aside) less what serves
 * (0 for an instance held out, its effective weight otherwise);</li>
 * <li>the guard's view of what is out equals that rule;</li>
 * <li>a health ejection leaves no more out than {@code maxEjectionPercent} of the base,
 * but for one average instance while nothing else was out;</li>
 * <li>a release under way gives its {@code to} group exactly its step's percentage of the
 * weight that serves, to one unit;</li>
 * <li>a zone view gives nothing to an instance the flat view gives nothing.</li>
 * </ul>
 * The seed is printed on failure ({@code Seed was N}); {@code -Dballast.seed=N} replays
 * it.
 */
class InstanceStateMachineTest {

	private static final ServiceName SERVICE = ServiceName.of("model");

	private static final Duration WINDOW = Duration.ofMinutes(10);

	private static final Duration STEP = Duration.ofSeconds(1);

	private static final int MAX_EJECTION = 20;

	private static final LocalityPolicy POLICY = LocalityPolicy.preferLocal(30);

	private static final List<MaxUnroutable> LIMITS = List.of(MaxUnroutable.DEFAULT, MaxUnroutable.count(1),
			MaxUnroutable.count(2), MaxUnroutable.percentOf(50), MaxUnroutable.percentOf(10),
			MaxUnroutable.percentOf(0), MaxUnroutable.percentOf(100));

	/** Six numbers a step: what it does, to which instance, and its arguments. */
	private static final Gen<List<List<Integer>>> SEQUENCES = lists()
		.of(lists().of(integers().between(0, 9_999)).ofSize(6))
		.ofSizeBetween(1, 60);

	/** The property's size, in sequences (each of up to 60 steps). */
	static final int SEQUENCES_RUN = 300;

	@Test
	void everySequenceKeepsTheWeightModelAndTheBudget() {
		qt(SEQUENCES_RUN).forAll(integers().between(0, LIMITS.size() - 1), SEQUENCES)
			.checkAssert((limit, sequence) -> run(LIMITS.get(limit), sequence));
	}

	/** The finding 1: an edit during a warm-up, then the ramp's next steps. */
	@Test
	void anEditDuringAWarmUpNeverLiftsTheEffectiveWeightAboveIt() {
		run(MaxUnroutable.DEFAULT, List.of(register(0, 100), register(1, 100), register(2, 100), register(3, 100),
				of(4, 0), of(5, 0, 0, 0, 20), of(6, 10), of(2, 0, 0, 30), of(6, 1), of(6, 5), of(6, 20)));
	}

	/**
	 * Found by the property (seed 5634018414441): a drain whose weight was edited to 0
	 * and back to 100 between two steps saw no change of the planned weight at its next
	 * step, and its ramp lifted it from 0 back to 100.
	 */
	@Test
	void aDrainEditedToZeroAndBackBetweenTwoStepsNeverComesBackUp() {
		run(MaxUnroutable.DEFAULT, List.of(register(0, 100), register(0, 100), register(0, 100), register(0, 100),
				of(3, 0, 0, 0, 1), of(1, 0, 0, 0, 1, 1), of(1, 0, 0, 2, 1, 1), of(3, 1, 0, 0, 1)));
	}

	/** The finding 3: a warming instance holds what it has not given back. */
	@Test
	void aWarmingInstanceHoldsTheBudgetUntilItsRampGivesItBack() {
		Model model = new Model(MaxUnroutable.DEFAULT);
		for (int i = 0; i < 3; i++) {
			model.apply(register(0, 100));
		}
		model.apply(of(4, 0));
		model.apply(of(5, 0, 0, 0, 11));
		model.apply(of(6, 1));
		assertThat(model.instances.get(InstanceId.of("i0")).effectiveWeight().value()).isEqualTo(10);
		assertThat(model.apply(of(4, 1))).as("maintenance of i1 beside i0 warming at 10 of 100").isFalse();
	}

	/**
	 * The finding 4: blue at 2/2/2/1 after a 99% step, each then in maintenance
	 * (they carry almost nothing); the abort would give them back 400 of 700.
	 */
	@Test
	void anAbortThatWouldGiveWeightToInstancesHeldOutIsRefused() {
		Model model = new Model(MaxUnroutable.DEFAULT);
		for (int i = 0; i < 7; i++) {
			model.apply(register(0, 100));
		}
		assertThat(model.apply(of(10, 3, 98, 1))).as("release of i0-i3 to i4-i6, steps [99, 100]").isTrue();
		assertThat(model.instances.get(InstanceId.of("i0")).weight().value()).isEqualTo(2);
		for (int i = 0; i < 4; i++) {
			assertThat(model.apply(of(4, i))).as("maintenance of i%d", i).isTrue();
		}
		assertThat(model.apply(of(13, 0))).as("abort giving 400 of 700 to instances in maintenance").isFalse();
		assertThat(model.apply(of(13, 0, 1, 1, 1, 10))).as("the same abort, forced").isTrue();
	}

	/** The finding 6: a dominant instance is not one an average floor admits. */
	@Test
	void theFloorAdmitsNoDominantInstance() {
		Model model = new Model(MaxUnroutable.DEFAULT);
		model.apply(register(0, 1000));
		for (int i = 0; i < 3; i++) {
			model.apply(register(0, 10));
		}
		assertThat(model.apply(of(4, 0))).as("maintenance of the 1000 of 1030").isFalse();
		assertThat(model.apply(of(4, 1))).as("maintenance of a 10").isTrue();
	}

	private static void run(MaxUnroutable limit, List<List<Integer>> sequence) {
		Model model = new Model(limit);
		for (List<Integer> step : sequence) {
			model.step(step, sequence);
		}
	}

	private static List<Integer> register(int zoneDraw, int weight) {
		return List.of(0, 0, zoneDraw, -weight, 1, 1);
	}

	private static List<Integer> of(int... numbers) {
		List<Integer> step = new ArrayList<>();
		for (int n : numbers) {
			step.add(n);
		}
		while (step.size() < 6) {
			step.add(1);
		}
		return step;
	}

	/** A ramp the mode schedule would hold for an instance, as {@code ScheduledStep}. */
	private record Ramping(boolean warm, int from, Instant startedAt, Duration duration, int planned) {

		Ramp ramp(Weight target) {
			return new Ramp(Weight.of(from), target, duration, STEP);
		}

		Instant endsAt() {
			return startedAt.plus(duration);
		}

		/** Planned again when the configured weight changed (the schedule's rule). */
		Ramping replanned(Instance instance, Instant now) {
			if (planned == instance.weight().value()) {
				return this;
			}
			Weight target = warm ? instance.weight() : Weight.ZERO;
			Ramp ramp = ramp(warm ? Weight.of(planned) : Weight.ZERO).rebased(Duration.between(startedAt, now),
					instance.effectiveWeight(), target);
			return new Ramping(warm, ramp.from().value(), now, ramp.duration(), instance.weight().value());
		}

	}

	/** A release as the model keeps it. */
	private static final class Release {

		final List<InstanceId> from;

		final List<InstanceId> to;

		final Map<InstanceId, Weight> original = new LinkedHashMap<>();

		final List<Integer> steps;

		int step;

		Release(List<InstanceId> from, List<InstanceId> to, List<Integer> steps) {
			this.from = from;
			this.to = to;
			this.steps = steps;
		}

		int percent() {
			return steps.get(step);
		}

		boolean member(InstanceId id) {
			return from.contains(id) || to.contains(id);
		}

	}

	/** One capacity that left a scope by a change that took it, for the oracle's base. */
	private record Left(String scope, long capacity, Instant at) {
	}

	private static final class Model {

		ServiceSettings settings;

		final Map<InstanceId, Instance> instances = new TreeMap<>(Comparator.comparing(InstanceId::value));

		final Map<InstanceId, Ramping> ramps = new TreeMap<>(Comparator.comparing(InstanceId::value));

		final List<CapacityPeak> peaks = new ArrayList<>();

		final List<Left> left = new ArrayList<>();

		Release release;

		Instant now = Instant.parse("2026-01-01T00:00:00Z");

		int registered;

		/** What the last step did, for the checks. */
		boolean guarded;

		boolean forced;

		boolean moved;

		boolean ejecting;

		boolean accepted;

		/**
		 * The instances after the step's first change, before a release kept its shares.
		 */
		Map<InstanceId, Instance> judged;

		/** The instances before and after a release kept its shares in this step. */
		Map<InstanceId, Instance> unshared;

		Map<InstanceId, Instance> shared;

		/**
		 * The instances as an ejection's decision found them: a registrant reporting
		 * itself critical counts as passing until the cap decides.
		 */
		Map<InstanceId, Instance> preEjection;

		Model(MaxUnroutable limit) {
			this.settings = settings(limit);
		}

		ServiceSettings settings(MaxUnroutable limit) {
			return new ServiceSettings(SERVICE, WeightPolicy.STRICT, Weight.of(100), LeaseTtl.ofSeconds(30), limit,
					limit.percent() ? limit.value() : 25, MAX_EJECTION, POLICY, 0);
		}

		/** Applies a step and checks every invariant against its state before. */
		void step(List<Integer> step, List<List<Integer>> sequence) {
			Map<InstanceId, Instance> before = new LinkedHashMap<>(instances);
			Map<String, long[]> figuresBefore = figures(before, before, false);
			Map<String, long[]> heldBefore = figures(before, before, true);
			apply(step);
			String where = "after %s in %s".formatted(step, sequence);
			checkWeights(before, where);
			checkBudget(before, figuresBefore, heldBefore, where);
			checkShares(where);
			checkZoneViews(where);
		}

		/**
		 * 0 register, 1 re-register, 2 weight edit, 3 drain, 4 maintenance, 5 serve, 6
		 * wait, 7 failing report, 8 passing report, 9 lease expiry, 10 release start, 11
		 * advance, 12 promote, 13 abort, 14 deregister, 15 zone move.
		 * @return whether it was admitted
		 */
		boolean apply(List<Integer> step) {
			guarded = false;
			forced = step.get(5) % 10 == 0;
			moved = false;
			ejecting = false;
			accepted = true;
			judged = null;
			unshared = null;
			shared = null;
			preEjection = null;
			int kind = step.get(0) % 16;
			if (kind == 0) {
				return registerNew(step);
			}
			if (kind == 6) {
				now = now.plusSeconds(step.get(1) % 5 == 0 ? WINDOW.toSeconds() + 1 : step.get(1) % 40);
				advanceRamps();
				return true;
			}
			if (kind == 10) {
				return startRelease(step);
			}
			if (kind >= 11 && kind <= 13) {
				return moveRelease(kind);
			}
			if (instances.isEmpty()) {
				return true;
			}
			List<Instance> all = new ArrayList<>(instances.values());
			Instance target = all.get(step.get(1) % all.size());
			return switch (kind) {
				case 1 -> guardedPut(target,
						Instance.registered(SERVICE, target.id(), target.address(), target.port(), zone(step.get(2)),
								weight(step.get(3)), target.metadata(), target.tags(), target.leaseTtl(), now, target));
				case 2 -> guardedPut(target,
						target.edited(target.zone(), weight(step.get(3)), target.metadata(), target.tags()));
				case 3 -> drain(target, step);
				case 4 -> {
					ramps.remove(target.id());
					yield guardedPut(target, target.mode() == Mode.MAINTENANCE ? target
							: target.inMode(Mode.MAINTENANCE, Weight.ZERO, ModeDetail.maintenance("model", null)));
				}
				case 5 -> serve(target, step);
				case 7 -> report(target, false);
				case 8 -> report(target, true);
				case 9 -> expire(target);
				case 14 -> {
					ramps.remove(target.id());
					yield commit(List.of(new Change(target, null)), false, false, List.of());
				}
				default -> guardedPut(target,
						target.edited(zone(step.get(2)), target.weight(), target.metadata(), target.tags()));
			};
		}

		private boolean registerNew(List<Integer> step) {
			InstanceId id = InstanceId.of("i" + registered++);
			int draw = step.get(3);
			Weight weight = draw < 0 ? Weight.of(-draw) : weight(draw);
			Instance fresh = Instance.registered(SERVICE, id, "127.0.0.1", Port.of(9000 + registered),
					zone(step.get(2)), weight, Metadata.EMPTY, new Tags(List.of()), LeaseTtl.ofSeconds(30), now, null);
			if (step.get(4) % 7 == 0) {
				// Registered reporting itself critical: ejected within the ejection cap,
				// as a
				// report is, not within the operators' budget.
				ejecting = true;
				preEjection = new TreeMap<>(Comparator.comparing(InstanceId::value));
				preEjection.putAll(instances);
				preEjection.put(id, fresh);
				fresh = fresh.expired(ejectable(fresh));
			}
			else {
				guarded = true;
			}
			return commit(List.of(new Change(null, fresh)), true, false, List.of());
		}

		private boolean drain(Instance target, List<Integer> step) {
			if (target.mode() == Mode.DRAINING || target.mode() == Mode.DRAINED) {
				return true;
			}
			guarded = true;
			Instance draining = target.inMode(Mode.DRAINING, target.effectiveWeight(), null);
			if (!commit(List.of(new Change(target, draining)), true, false, List.of())) {
				return false;
			}
			Instance stored = instances.get(target.id());
			ramps.put(target.id(), new Ramping(false, target.effectiveWeight().value(), now,
					Duration.ofSeconds(step.get(4) % 30), stored.weight().value()));
			advanceRamps();
			return true;
		}

		private boolean serve(Instance target, List<Integer> step) {
			if (target.mode() == Mode.SERVING || target.mode() == Mode.WARMING) {
				return true;
			}
			Duration warmup = Duration.ofSeconds(step.get(4) % 3 == 0 ? 0 : step.get(4) % 60);
			ramps.remove(target.id());
			Instance served = warmup.isZero() || target.weight().value() == 0
					? target.inMode(Mode.SERVING, target.weight(), null)
					: target.inMode(Mode.WARMING, Weight.of(1), ModeDetail.warming(now.plus(warmup)));
			commit(List.of(new Change(target, served)), false, false, List.of());
			Instance stored = instances.get(target.id());
			if (stored.mode() == Mode.WARMING) {
				ramps.put(target.id(), new Ramping(true, 1, now, warmup, stored.weight().value()));
				advanceRamps();
			}
			return true;
		}

		/** A health report, as {@code HealthReports}: failing ejects within the cap. */
		private boolean report(Instance target, boolean passing) {
			Instance renewed = target.renewed(now);
			if (passing) {
				return commit(List.of(new Change(target, renewed)), false, false, List.of());
			}
			ejecting = true;
			preEjection = new TreeMap<>(Comparator.comparing(InstanceId::value));
			preEjection.putAll(instances);
			// One already ejected stays so: it was out before the report too.
			preEjection.put(target.id(), target.ejected() ? target : renewed);
			return commit(List.of(new Change(target, renewed.expired(target.ejected() || ejectable(renewed)))), false,
					false, List.of());
		}

		/**
		 * The lease of {@code target} runs out and the sweep judges it, as the sweeper.
		 */
		private boolean expire(Instance target) {
			if (target.health() == Health.CRITICAL) {
				return true;
			}
			ejecting = true;
			preEjection = new TreeMap<>(Comparator.comparing(InstanceId::value));
			preEjection.putAll(instances);
			List<EjectionCap.Member> members = instances.values()
				.stream()
				.map(i -> new EjectionCap.Member(i.id().value(), i.nominalWeight().value(), i.serving(), i.routable(),
						i.leaseExpiresAt(), i == target || i.health() == Health.CRITICAL, i.ejected()))
				.toList();
			boolean eject = EjectionCap.decide(members, guardBase(), MAX_EJECTION)
				.eject()
				.contains(target.id().value());
			return commit(List.of(new Change(target, target.expired(eject))), false, false, List.of());
		}

		private boolean ejectable(Instance reporting) {
			List<EjectionCap.Member> members = new ArrayList<>();
			instances.values()
				.stream()
				.filter(i -> !i.id().equals(reporting.id()))
				.forEach(i -> members.add(new EjectionCap.Member(i.id().value(), i.nominalWeight().value(), i.serving(),
						i.routable(), i.leaseExpiresAt(), i.health() == Health.CRITICAL, i.ejected())));
			members.add(new EjectionCap.Member(reporting.id().value(), reporting.nominalWeight().value(),
					reporting.serving(), reporting.routable(), now, true, false));
			long base = Math.max(guardBase(), members.stream().mapToLong(EjectionCap.Member::weight).sum());
			return EjectionCap.decide(members, base, MAX_EJECTION).eject().contains(reporting.id().value());
		}

		private long guardBase() {
			long capacity = instances.values().stream().mapToLong(i -> i.nominalWeight().value()).sum();
			long peak = peaks.stream()
				.filter(p -> p.liveAt(now) && p.scope().equals(UnroutableBudget.SERVICE))
				.mapToLong(CapacityPeak::capacity)
				.max()
				.orElse(0);
			return Math.max(capacity, peak);
		}

		/** The mode schedule's steps that are due, as {@code ModeSteps} applies them. */
		private void advanceRamps() {
			for (InstanceId id : List.copyOf(ramps.keySet())) {
				Instance instance = instances.get(id);
				Ramping ramping = ramps.get(id);
				if (instance == null || instance.mode() != (ramping.warm() ? Mode.WARMING : Mode.DRAINING)) {
					ramps.remove(id);
					continue;
				}
				Ramping planned = ramping.replanned(instance, now);
				ramps.put(id, planned);
				Weight target = planned.warm() ? instance.weight() : Weight.ZERO;
				Ramp ramp = planned.ramp(target);
				Duration elapsed = Duration.between(planned.startedAt(), now);
				Instance after;
				if (ramp.finished(elapsed)) {
					ramps.remove(id);
					after = planned.warm() ? instance.inMode(Mode.SERVING, instance.weight(), null)
							: instance.inMode(Mode.DRAINED, Weight.ZERO, null);
				}
				else {
					after = instance.inMode(instance.mode(), ramp.next(elapsed, instance.effectiveWeight()),
							planned.warm() ? ModeDetail.warming(planned.endsAt()) : null);
				}
				commit(List.of(new Change(instance, after)), false, false, List.of());
			}
		}

		private boolean guardedPut(Instance target, Instance after) {
			guarded = true;
			return commit(List.of(new Change(target, after)), true, false, List.of());
		}

		private boolean startRelease(List<Integer> step) {
			if (release != null || instances.size() < 2) {
				return true;
			}
			List<InstanceId> ids = new ArrayList<>(instances.keySet());
			int split = 1 + step.get(1) % (ids.size() - 1);
			List<Integer> steps = switch (step.get(3) % 3) {
				case 0 -> List.of(10, 50, 100);
				case 1 -> List.of(1 + step.get(2) % 99, 100);
				default -> List.of(1, 5, 25, 100);
			};
			Release started = new Release(List.copyOf(ids.subList(0, split)),
					List.copyOf(ids.subList(split, ids.size())), steps);
			if (started.to.stream().map(instances::get).noneMatch(Model::capable)
					|| ids.stream().map(instances::get).allMatch(Instance::heldOut)) {
				return true;
			}
			ids.forEach(id -> started.original.put(id, instances.get(id).weight()));
			Release was = release;
			release = started;
			if (!moveTo(started, 0, 0)) {
				release = was;
				return false;
			}
			return true;
		}

		private boolean moveRelease(int kind) {
			if (release == null) {
				return true;
			}
			if (kind == 13) {
				List<Change> restore = new ArrayList<>();
				instances.values()
					.stream()
					.filter(i -> release.original.containsKey(i.id())
							&& !release.original.get(i.id()).equals(i.weight()))
					.forEach(i -> restore.add(new Change(i, i.shiftedTo(release.original.get(i.id())))));
				guarded = true;
				moved = true;
				if (!commit(restore, true, true, List.of())) {
					return false;
				}
				release = null;
				return true;
			}
			if (release.to.stream().map(instances::get).filter(Objects::nonNull).noneMatch(Model::capable)) {
				return true;
			}
			int next = kind == 11 ? Math.min(release.step + 1, release.steps.size() - 1) : release.steps.size() - 1;
			return moveTo(release, release.percent(), next);
		}

		/** A release's step, as {@code Releases.moveTo}: guarded, a move. */
		private boolean moveTo(Release shifting, int percentBefore, int step) {
			int percent = shifting.steps.get(step);
			Map<String, Weight> weights = ShiftWeights.at(shiftMembers(shifting, instances), percent);
			List<Change> changes = new ArrayList<>();
			members(shifting, instances).stream()
				.filter(i -> !weights.get(i.id().value()).equals(i.weight()))
				.forEach(i -> changes.add(new Change(i, i.shiftedTo(weights.get(i.id().value())))));
			long toCapable = members(shifting, instances).stream()
				.filter(i -> shifting.to.contains(i.id()) && capable(i))
				.mapToLong(i -> shifting.original.get(i.id()).value())
				.sum();
			long fromNominal = members(shifting, instances).stream()
				.filter(i -> shifting.from.contains(i.id()))
				.mapToLong(i -> shifting.original.get(i.id()).value())
				.sum();
			UnroutableBudget.Scope scope = UnroutableBudget.shift("release", fromNominal, toCapable, percentBefore,
					percent, List.of());
			guarded = true;
			moved = true;
			if (!commit(changes, true, true, List.of(scope))) {
				return false;
			}
			shifting.step = step;
			if (percent == 100) {
				release = null;
			}
			return true;
		}

		private static boolean capable(Instance instance) {
			return instance.health() == Health.PASSING && !instance.heldOut();
		}

		private static List<Instance> members(Release release, Map<InstanceId, Instance> instances) {
			return instances.values().stream().filter(i -> release.member(i.id())).toList();
		}

		private static List<ShiftWeights.Member> shiftMembers(Release release, Map<InstanceId, Instance> instances) {
			return members(release, instances).stream()
				.map(i -> new ShiftWeights.Member(i.id().value(), release.to.contains(i.id()),
						release.original.getOrDefault(i.id(), i.weight()).value(), i.weight().value(), !i.heldOut()))
				.toList();
		}

		/**
		 * A set of changes through the guard ({@link Admission}), then, as
		 * {@code Changes.commit}, a release under way keeps its shares.
		 */
		private boolean commit(List<Change> changes, boolean guard, boolean shifting,
				List<UnroutableBudget.Scope> extra) {
			peaks.removeIf(peak -> !peak.liveAt(now));
			Admission admission = Admission.judge(List.copyOf(instances.values()), changes, guard, shifting, extra,
					settings, shifting ? List.of() : List.copyOf(peaks), now, WINDOW);
			if (admission.breach().isPresent() && !forced) {
				accepted = false;
				return false;
			}
			peaks.addAll(admission.peaks());
			Map<InstanceId, Instance> after = new TreeMap<>(Comparator.comparing(InstanceId::value));
			after.putAll(instances);
			for (Change change : changes) {
				if (change.after() == null) {
					after.remove(change.id());
				}
				else {
					after.put(change.id(), change.after());
				}
			}
			if (!shifting) {
				recordLeft(instances, after);
			}
			if (judged == null) {
				judged = new LinkedHashMap<>(after);
			}
			if (!shifting && release != null && changes.stream().anyMatch(Change::movesShares)) {
				unshared = new LinkedHashMap<>(after);
				for (InstanceId id : List.copyOf(after.keySet())) {
					Instance was = instances.get(id);
					Instance is = after.get(id);
					if (release.member(id) && (was == null || !was.weight().equals(is.weight()))) {
						release.original.put(id, is.weight());
					}
				}
				Map<String, Weight> weights = ShiftWeights.at(shiftMembers(release, after), release.percent());
				List<Change> moves = new ArrayList<>();
				members(release, after).stream()
					.filter(i -> !weights.get(i.id().value()).equals(i.weight()))
					.forEach(i -> moves.add(new Change(i, i.shiftedTo(weights.get(i.id().value())))));
				Admission kept = Admission.judge(List.copyOf(after.values()), moves, guard, true, List.of(), settings,
						List.of(), now, WINDOW);
				if (kept.breach().isPresent() && !forced) {
					accepted = false;
					return false;
				}
				moves.forEach(move -> after.put(move.id(), move.after()));
				shared = new LinkedHashMap<>(after);
			}
			instances.clear();
			instances.putAll(after);
			return true;
		}

		/**
		 * The oracle's record of capacity that left a scope, from the definition: a
		 * change other than a shift's that lowers a scope's capacity (a weight lowered,
		 * an instance moved out or removed) leaves what the scope had.
		 */
		private void recordLeft(Map<InstanceId, Instance> was, Map<InstanceId, Instance> is) {
			Map<String, Long> after = capacities(is);
			capacities(was).forEach((scope, capacity) -> {
				if (after.getOrDefault(scope, 0L) < capacity) {
					left.add(new Left(scope, capacity, now));
				}
			});
		}

		private static Map<String, Long> capacities(Map<InstanceId, Instance> instances) {
			Map<String, Long> capacities = new LinkedHashMap<>();
			for (Instance instance : instances.values()) {
				capacities.merge(UnroutableBudget.SERVICE, (long) instance.nominalWeight().value(), Long::sum);
				if (instance.zone() != null) {
					capacities.merge(UnroutableBudget.zoneScope(instance.zone()),
							(long) instance.nominalWeight().value(), Long::sum);
				}
			}
			return capacities;
		}

		private static boolean in(String scope, Instance instance) {
			return scope.equals(UnroutableBudget.SERVICE)
					|| (instance.zone() != null && scope.equals(UnroutableBudget.zoneScope(instance.zone())));
		}

		/**
		 * What serves, from the definition: nothing when held out, else the effective
		 * weight.
		 */
		private static long serves(Instance instance) {
			boolean byAction = instance.mode() == Mode.DRAINING || instance.mode() == Mode.DRAINED
					|| instance.mode() == Mode.MAINTENANCE
					|| (instance.weight().value() == 0 && instance.nominalWeight().value() > 0);
			if (byAction || instance.ejected()) {
				return 0;
			}
			return Math.min(instance.effectiveWeight().value(), instance.nominalWeight().value());
		}

		/**
		 * Each scope's base, out (the base less what serves), instances not serving all
		 * of their capacity, the largest capacities and the sum and count of capacities;
		 * with {@code moved}, out counts only what instances held out carry, against the
		 * capacity of the moment.
		 */
		Map<String, long[]> figures(Map<InstanceId, Instance> previous, Map<InstanceId, Instance> state,
				boolean moved) {
			TreeSet<String> scopes = new TreeSet<>(capacities(state).keySet());
			scopes.addAll(capacities(previous).keySet());
			left.stream().filter(l -> l.at().plus(WINDOW).isAfter(now)).forEach(l -> scopes.add(l.scope()));
			Map<String, long[]> figures = new LinkedHashMap<>();
			for (String scope : scopes) {
				long capacity = 0;
				long serving = 0;
				long out = 0;
				for (Instance instance : state.values()) {
					if (!in(scope, instance)) {
						continue;
					}
					capacity += instance.nominalWeight().value();
					serving += serves(instance);
					out += serves(instance) < instance.nominalWeight().value() ? 1 : 0;
				}
				// Each instance in the scope before or after, at the larger of its two
				// capacities: the instances whose average share the floor admits.
				Map<InstanceId, Long> each = new LinkedHashMap<>();
				for (Map<InstanceId, Instance> side : List.of(previous, state)) {
					side.values()
						.stream()
						.filter(instance -> in(scope, instance))
						.forEach(instance -> each.merge(instance.id(), (long) instance.nominalWeight().value(),
								Math::max));
				}
				List<Long> sizes = new ArrayList<>(each.values());
				long base = capacity;
				if (!moved) {
					for (Left l : left) {
						if (l.scope().equals(scope) && l.at().plus(WINDOW).isAfter(now)) {
							base = Math.max(base, l.capacity());
						}
					}
				}
				sizes.sort(Comparator.reverseOrder());
				long largest = sizes.stream()
					.limit(settings.maxUnroutable().percent() ? 1 : settings.maxUnroutable().value())
					.mapToLong(Long::longValue)
					.sum();
				long sum = sizes.stream().mapToLong(Long::longValue).sum();
				long carrying = sizes.stream().filter(size -> size > 0).count();
				figures.put(scope, new long[] { base, base - serving, out, largest, sum, carrying });
			}
			return figures;
		}

		void checkWeights(Map<InstanceId, Instance> before, String where) {
			for (Instance instance : instances.values()) {
				assertThat(instance.effectiveWeight().value())
					.as("%s: effective <= configured %s", instance.id(), where)
					.isBetween(0, instance.weight().value());
				Instance was = before.get(instance.id());
				if (was == null || instance.ejected() || was.ejected()) {
					continue;
				}
				int is = instance.effectiveWeight().value();
				if (was.mode() == Mode.WARMING
						&& (instance.mode() == Mode.WARMING || instance.mode() == Mode.SERVING)) {
					assertThat(is).as("%s: a warm-up only climbs toward its target %s", instance.id(), where)
						.isGreaterThanOrEqualTo(Math.min(was.effectiveWeight().value(), instance.weight().value()));
				}
				if (was.mode() == Mode.DRAINING
						&& (instance.mode() == Mode.DRAINING || instance.mode() == Mode.DRAINED)) {
					assertThat(is).as("%s: a drain only comes down %s", instance.id(), where)
						.isLessThanOrEqualTo(was.effectiveWeight().value());
				}
			}
		}

		void checkBudget(Map<InstanceId, Instance> previous, Map<String, long[]> before, Map<String, long[]> heldBefore,
				String where) {
			Map<String, long[]> after = figures(previous, instances, false);
			long[] service = after.get(UnroutableBudget.SERVICE);
			if (service != null && !instances.isEmpty()) {
				List<UnroutableBudget.Member> members = instances.values().stream().map(Admission::member).toList();
				UnroutableBudget.Scope guardView = UnroutableBudget.scopes(members, members, peaks, now).getFirst();
				assertThat(guardView.after()).as("the guard's view of what is out %s", where).isEqualTo(service[1]);
			}
			if (accepted && guarded && !forced && judged != null) {
				Map<String, long[]> judgedFigures = figures(previous, judged, moved);
				Map<String, long[]> was = moved ? heldBefore : before;
				for (Map.Entry<String, long[]> scope : judgedFigures.entrySet()) {
					long[] is = scope.getValue();
					long[] had = was.getOrDefault(scope.getKey(), new long[6]);
					boolean tookNothing = is[1] <= had[1] && is[2] <= had[2];
					assertThat(tookNothing || BudgetOracle.within(settings.maxUnroutable(), is))
						.as("%s: base %d, out %d, instances out %d %s", scope.getKey(), is[0], is[1], is[2], where)
						.isTrue();
				}
			}
			if (shared != null && accepted && guarded && !forced) {
				// Keeping the shares moves capacity among members: it takes nothing more
				// out,
				// or stays within the budget, counted as a move.
				Map<String, long[]> heldUnshared = figures(unshared, unshared, true);
				figures(unshared, shared, true).forEach((scope, is) -> {
					long[] had = heldUnshared.getOrDefault(scope, new long[6]);
					assertThat(
							(is[1] <= had[1] && is[2] <= had[2]) || BudgetOracle.within(settings.maxUnroutable(), is))
						.as("%s as a release kept its shares (%s to %s) %s", scope, describe(unshared),
								describe(shared), where)
						.isTrue();
				});
			}
			if (ejecting && service != null) {
				long[] was = figures(preEjection, preEjection, false).getOrDefault(UnroutableBudget.SERVICE,
						new long[6]);
				// The ejection floor: one instance, whatever it weighs, while nothing was
				// out.
				boolean alone = was[1] == 0 && service[2] <= 1;
				assertThat(service[1] <= was[1] || alone || service[1] * 100 <= service[0] * MAX_EJECTION)
					.as("an ejection leaves %d of %d out %s", service[1], service[0], where)
					.isTrue();
			}
		}

		private static String describe(Map<InstanceId, Instance> state) {
			return state.values()
				.stream()
				.map(i -> "%s %s w%d n%d e%d%s%s".formatted(i.id(), i.zone(), i.weight().value(),
						i.nominalWeight().value(), i.effectiveWeight().value(), i.mode(),
						i.ejected() ? " ejected" : ""))
				.toList()
				.toString();
		}

		void checkShares(String where) {
			if (release == null) {
				return;
			}
			long to = 0;
			long serving = 0;
			boolean toServes = false;
			boolean fromServes = false;
			for (Instance instance : members(release, instances)) {
				if (instance.heldOut()) {
					continue;
				}
				serving += instance.weight().value();
				if (release.to.contains(instance.id())) {
					to += instance.weight().value();
					toServes = true;
				}
				else {
					fromServes = true;
				}
			}
			int share = !toServes ? 0 : !fromServes ? 100 : release.percent();
			assertThat(to * 100).as("release at %d%%: to %d of %d %s", release.percent(), to, serving, where)
				.isLessThanOrEqualTo(serving * share)
				.isGreaterThan(serving * share - 100);
		}

		void checkZoneViews(String where) {
			List<Instance> all = List.copyOf(instances.values());
			List<LocalityView.Member> members = all.stream()
				.map(i -> new LocalityView.Member(i.zone(), i.nominalWeight(), i.effectiveWeight()))
				.toList();
			long flat = all.stream().mapToLong(i -> i.effectiveWeight().value()).sum();
			for (String zone : List.of("z1", "z2", "z3")) {
				List<Weight> view = LocalityView.of(members, zone, POLICY);
				long total = 0;
				for (int i = 0; i < all.size(); i++) {
					if (all.get(i).effectiveWeight().value() == 0) {
						assertThat(view.get(i)).as("zone %s gives %s nothing %s", zone, all.get(i).id(), where)
							.isEqualTo(Weight.ZERO);
					}
					total += view.get(i).value();
				}
				assertThat(total > 0).as("zone %s serves while the flat view does %s", zone, where).isEqualTo(flat > 0);
			}
		}

		private static String zone(int draw) {
			return draw % 4 == 0 ? null : "z" + draw % 4;
		}

		private static Weight weight(int draw) {
			return Weight.of(switch (draw % 6) {
				case 0 -> 0;
				case 1 -> 1;
				case 2, 3 -> 100;
				default -> draw % 301;
			});
		}

	}

}
