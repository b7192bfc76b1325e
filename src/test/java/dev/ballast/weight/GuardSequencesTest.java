package dev.ballast.weight;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiPredicate;

import dev.ballast.weight.UnroutableBudget.Member;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import static dev.ballast.support.Properties.qt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * The guard over sequences of actions, against a model: random sequences of every action
 * that changes what the guard counts (weights set by hand to any value, as a PATCH, a
 * re-registration or Consul's {@code Weights} do; zone moves; drains and maintenance;
 * returns to service; new registrations; deregistrations; lease expiries and renewals;
 * forced actions; time passing, past the window too), on a service with zones, under
 * every kind of limit. After every accepted unforced guarded action, every scope stands
 * within its budget counted against the oracle's base, or the action took nothing more in
 * it.
 * <p>
 * The oracle is written from the definition, not from the code: it keeps each scope's
 * capacity after every action and takes the highest that was in effect within the window,
 * where the guard keeps pruned peak records.
 */
class GuardSequencesTest {

	private static final Duration WINDOW = Duration.ofMinutes(10);

	private static final List<MaxUnroutable> LIMITS = List.of(MaxUnroutable.DEFAULT, MaxUnroutable.count(1),
			MaxUnroutable.count(2), MaxUnroutable.percentOf(50), MaxUnroutable.percentOf(0), MaxUnroutable.count(0),
			MaxUnroutable.percentOf(100), MaxUnroutable.percentOf(10));

	/** Five numbers an action: what it does, to which instance, and its arguments. */
	private static final Gen<List<List<Integer>>> SEQUENCES = lists()
		.of(lists().of(integers().between(0, 9_999)).ofSize(5))
		.ofSizeBetween(1, 40);

	@Test
	void noSequenceOfUnforcedActionsExceedsTheBudget() {
		qt(500).forAll(integers().between(0, LIMITS.size() - 1), SEQUENCES)
			.checkAssert((limit, sequence) -> assertThat(violation(LIMITS.get(limit), sequence, Service::guard))
				.as("under maxUnroutable %s", LIMITS.get(limit))
				.isEmpty());
	}

	/**
	 * Today's rule (d3bde76) counted only instances newly held out, against the nominal
	 * weight of the moment: the model finds its walk-arounds.
	 */
	@Test
	void theRuleOfMainBeforeTheBaseIsWalkedAround() {
		List<List<Integer>> weights = List.of(register(HUNDRED), register(HUNDRED), register(HUNDRED),
				register(HUNDRED), setWeight(0, 1), setWeight(0, 0), setWeight(1, 1), setWeight(1, 0), setWeight(2, 1),
				setWeight(2, 0));
		assertThat(violation(MaxUnroutable.DEFAULT, weights, Service::before))
			.hasValueSatisfying(found -> assertThat(found).startsWith("service"));
		assertThat(violation(MaxUnroutable.DEFAULT, weights, Service::guard)).isEmpty();
		boolean found = false;
		for (int seed = 0; seed < 2_000 && !found; seed++) {
			found = violation(MaxUnroutable.DEFAULT, random(seed), Service::before).isPresent();
		}
		assertThat(found).as("random sequences find a walk-around of the old rule").isTrue();
	}

	/** The two walk-arounds, refused at the step that would exceed the budget. */
	@Test
	void refusesTheWalkAroundsAtTheStepThatWouldExceedTheBudget() {
		Service small = new Service(MaxUnroutable.DEFAULT, Service::guard);
		for (int i = 0; i < 4; i++) {
			small.apply(register(HUNDRED));
		}
		assertThat(small.apply(setWeight(0, 1))).isTrue();
		assertThat(small.apply(setWeight(0, 0))).isTrue();
		assertThat(small.apply(setWeight(1, 1))).as("i1 to 1 while i0 is out").isFalse();

		Service zones = new Service(MaxUnroutable.DEFAULT, Service::guard);
		for (int i = 0; i < 8; i++) {
			zones.apply(List.of(0, 0, 1 + i / 4, HUNDRED, 0));
		}
		assertThat(zones.apply(List.of(2, 0, 0, 0, 0))).as("drain a1").isTrue();
		assertThat(zones.apply(List.of(2, 1, 0, 0, 0))).as("drain a2").isFalse();
		assertThat(zones.apply(List.of(1, 4, 1, 0, 0))).as("b1 into za").isTrue();
		assertThat(zones.apply(List.of(1, 5, 1, 0, 0))).as("b2 into za").isFalse();
		assertThat(zones.apply(List.of(2, 1, 0, 0, 0))).as("drain a2 with b1 in za").isFalse();
	}

	@Test
	void aSmallServiceDrainsOneAtATimeWithTheDefault() {
		Service three = new Service(MaxUnroutable.DEFAULT, Service::guard);
		for (int zone = 1; zone <= 3; zone++) {
			three.apply(List.of(0, 0, zone, HUNDRED, 0));
		}
		assertThat(three.apply(List.of(2, 0, 0, 0, 0))).isTrue();
		assertThat(three.apply(List.of(2, 1, 0, 0, 0))).isFalse();
		three.apply(List.of(3, 0, 0, 0, 0));
		assertThat(three.apply(List.of(2, 1, 0, 0, 0))).isTrue();
	}

	private static List<List<Integer>> random(long seed) {
		java.util.Random random = new java.util.Random(seed);
		List<List<Integer>> sequence = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			sequence.add(List.of(0, 0, random.nextInt(3), HUNDRED, 0));
		}
		for (int i = 0; i < 20; i++) {
			sequence.add(List.of(random.nextInt(10_000), random.nextInt(10_000), random.nextInt(10_000),
					random.nextInt(10_000), random.nextInt(10_000)));
		}
		return sequence;
	}

	/** The draw {@link Service#weight} reads as 100. */
	private static final int HUNDRED = 2;

	private static List<Integer> register(int weightDraw) {
		return List.of(0, 0, 0, weightDraw, 0);
	}

	/** Weight 0 and 1 are drawn as themselves. */
	private static List<Integer> setWeight(int index, int weight) {
		return List.of(4, index, 0, weight, 0);
	}

	/** The first step that breaks the promise, in words, or empty. */
	private static Optional<String> violation(MaxUnroutable limit, List<List<Integer>> sequence, Rule rule) {
		Service service = new Service(limit, rule);
		for (List<Integer> step : sequence) {
			Map<String, long[]> before = service.figures();
			boolean guarded = service.guarded(step);
			boolean accepted = service.apply(step);
			if (!accepted || !guarded || service.forced(step)) {
				continue;
			}
			Map<String, long[]> after = service.figures();
			for (Map.Entry<String, long[]> scope : after.entrySet()) {
				long[] is = scope.getValue();
				long[] was = before.getOrDefault(scope.getKey(), new long[] { 0, 0, 0, 0, 0, 0 });
				boolean tookNothing = is[1] <= was[1] && is[2] <= was[2];
				if (!tookNothing && !BudgetOracle.within(limit, is)) {
					return Optional.of("%s after %s: base %d, unroutable %d, out %d (steps %s)"
						.formatted(scope.getKey(), step, is[0], is[1], is[2], sequence));
				}
			}
		}
		return Optional.empty();
	}

	/** How a guard decides: admitted when it returns true. */
	private interface Rule {

		boolean admits(Service service, List<Member> before, List<Member> after);

	}

	/**
	 * A service in the model: instances by id, the guard's peaks, the clock, and the
	 * oracle's history of each scope's capacity.
	 */
	private static final class Service {

		private final MaxUnroutable limit;

		private final Rule rule;

		private final Map<String, Instance> instances = new LinkedHashMap<>();

		private final List<CapacityPeak> peaks = new ArrayList<>();

		private final List<Sample> history = new ArrayList<>();

		private Map<String, Instance> previous = Map.of();

		private Instant now = Instant.parse("2026-01-01T00:00:00Z");

		private int registered;

		Service(MaxUnroutable limit, Rule rule) {
			this.limit = limit;
			this.rule = rule;
			history.add(new Sample(now, Map.of()));
		}

		/** The guard as the write path runs it. */
		boolean guard(List<Member> before, List<Member> after) {
			return UnroutableBudget.check(UnroutableBudget.scopes(before, after, peaks, now), limit).isEmpty();
		}

		/**
		 * The rule of main at d3bde76: instances newly held out, counted with their
		 * nominal weight against the nominal weight of the moment, in the service and
		 * each zone.
		 */
		boolean before(List<Member> before, List<Member> after) {
			List<String> proposed = after.stream()
				.filter(Member::unroutable)
				.map(Member::id)
				.filter(id -> before.stream().noneMatch(m -> m.id().equals(id) && m.unroutable()))
				.toList();
			TreeSet<String> zones = new TreeSet<>();
			before.stream().map(Member::zone).filter(Objects::nonNull).forEach(zones::add);
			List<BiPredicate<Member, String>> scopes = new ArrayList<>();
			scopes.add((member, zone) -> true);
			for (String zone : zones) {
				long nominal = 0;
				long out = 0;
				long taken = 0;
				for (Member member : before) {
					if (!zone.equals(member.zone())) {
						continue;
					}
					nominal += member.weight();
					out += member.unroutable() ? member.weight() : 0;
					taken += !member.unroutable() && proposed.contains(member.id()) ? member.weight() : 0;
				}
				if (taken > 0 && (out + taken) * 100 > nominal * limit.value()) {
					return false;
				}
			}
			long nominal = before.stream().mapToLong(Member::weight).sum();
			long out = before.stream().filter(Member::unroutable).mapToLong(Member::weight).sum();
			long taken = before.stream()
				.filter(m -> !m.unroutable() && proposed.contains(m.id()))
				.mapToLong(Member::weight)
				.sum();
			return taken == 0 || (out + taken) * 100 <= nominal * limit.value();
		}

		boolean guarded(List<Integer> step) {
			int kind = step.get(0) % 10;
			return kind == 1 || kind == 2 || kind == 4 || kind == 9;
		}

		boolean forced(List<Integer> step) {
			return step.get(4) % 10 == 0 && step.get(4) > 0;
		}

		/**
		 * Applies one step: 0 register, 1 move zone, 2 drain or maintenance, 3 serve, 4
		 * weight by hand, 5 deregister, 6 expire, 7 renew, 8 wait, 9 re-register with
		 * zone and weight.
		 * @return whether it was admitted (unguarded steps always are)
		 */
		boolean apply(List<Integer> step) {
			int kind = step.get(0) % 10;
			if (kind == 8) {
				now = now.plusSeconds(step.get(1) % 3 == 0 ? WINDOW.toSeconds() + 1 : step.get(1) % 400);
				return true;
			}
			if (kind == 0) {
				String id = "i" + registered++;
				put(new Instance(id, zone(step.get(2)), weight(step.get(3)), weight(step.get(3)), false, false));
				return true;
			}
			if (instances.isEmpty()) {
				return true;
			}
			List<Instance> all = new ArrayList<>(instances.values());
			Instance target = all.get(step.get(1) % all.size());
			Instance changed = switch (kind) {
				case 1 -> target.inZone(zone(step.get(2)));
				case 2 -> target.held(true);
				case 3 -> target.held(false);
				case 4 -> target.weighted(weight(step.get(3)));
				case 6 -> target.ejected(true);
				case 7 -> target.ejected(false);
				case 9 -> target.inZone(zone(step.get(2))).weighted(weight(step.get(3)));
				default -> null;
			};
			List<Member> before = members();
			Map<String, Instance> next = new LinkedHashMap<>(instances);
			if (changed == null) {
				next.remove(target.id());
			}
			else {
				next.put(target.id(), changed);
			}
			List<Member> after = next.values().stream().map(Instance::member).toList();
			previous = new LinkedHashMap<>(instances);
			if (guarded(step) && !forced(step) && !rule.admits(this, before, after)) {
				return false;
			}
			peaks.addAll(UnroutableBudget.peaks(before, after, now.plus(WINDOW), "step " + step));
			peaks.removeIf(peak -> !peak.liveAt(now));
			instances.clear();
			instances.putAll(next);
			record();
			return true;
		}

		private void put(Instance instance) {
			previous = new LinkedHashMap<>(instances);
			instances.put(instance.id(), instance);
			record();
		}

		private void record() {
			Map<String, Long> capacities = new LinkedHashMap<>();
			for (Instance instance : instances.values()) {
				capacities.merge(UnroutableBudget.SERVICE, (long) instance.nominal(), Long::sum);
				if (instance.zone() != null) {
					capacities.merge(UnroutableBudget.zoneScope(instance.zone()), (long) instance.nominal(), Long::sum);
				}
			}
			history.add(new Sample(now, capacities));
		}

		/**
		 * Each scope's base (its highest capacity in effect within the window),
		 * unroutable capacity, instances out, and its largest instance.
		 */
		Map<String, long[]> figures() {
			TreeSet<String> scopes = new TreeSet<>();
			history.forEach(sample -> scopes.addAll(sample.capacities().keySet()));
			Map<String, long[]> figures = new LinkedHashMap<>();
			for (String scope : scopes) {
				long base = 0;
				for (int i = 0; i < history.size(); i++) {
					Instant ended = i + 1 < history.size() ? history.get(i + 1).at() : null;
					boolean inWindow = ended == null || ended.plus(WINDOW).isAfter(now);
					if (inWindow) {
						base = Math.max(base, history.get(i).capacities().getOrDefault(scope, 0L));
					}
				}
				long serving = 0;
				long out = 0;
				for (Instance instance : instances.values()) {
					if (in(scope, instance)) {
						if (instance.heldOut()) {
							out += instance.nominal() > 0 ? 1 : 0;
						}
						else {
							serving += instance.nominal();
						}
					}
				}
				// Each instance in the scope before or after the last step, at the larger
				// of its two capacities.
				Map<String, Long> capacities = new LinkedHashMap<>();
				for (Map<String, Instance> side : List.of(previous, instances)) {
					side.values()
						.stream()
						.filter(instance -> in(scope, instance))
						.forEach(instance -> capacities.merge(instance.id(), (long) instance.nominal(), Math::max));
				}
				long largest = capacities.values()
					.stream()
					.sorted(java.util.Comparator.reverseOrder())
					.limit(limit.percent() ? 1 : limit.value())
					.mapToLong(Long::longValue)
					.sum();
				long sum = capacities.values().stream().mapToLong(Long::longValue).sum();
				long carrying = capacities.values().stream().filter(capacity -> capacity > 0).count();
				figures.put(scope, new long[] { base, base - serving, out, largest, sum, carrying });
			}
			return figures;
		}

		private static boolean in(String scope, Instance instance) {
			return scope.equals(UnroutableBudget.SERVICE)
					|| (instance.zone() != null && scope.equals(UnroutableBudget.zoneScope(instance.zone())));
		}

		private List<Member> members() {
			return instances.values().stream().map(Instance::member).toList();
		}

		private static String zone(int draw) {
			return switch (draw % 4) {
				case 0 -> null;
				default -> "z" + draw % 4;
			};
		}

		private static int weight(int draw) {
			return switch (draw % 5) {
				case 0 -> 0;
				case 1 -> 1;
				case 2 -> 100;
				default -> draw % 301;
			};
		}

	}

	/** The oracle's record: each scope's capacity from {@code at} on. */
	private record Sample(Instant at, Map<String, Long> capacities) {
	}

	/**
	 * An instance as the model keeps it: a weight set by hand, its nominal weight (the
	 * last positive one, as {@link NominalWeight} keeps it), whether an operator action
	 * or an expiry holds it out.
	 */
	private record Instance(String id, String zone, int weight, int nominal, boolean held, boolean ejected) {

		boolean heldOut() {
			return held || ejected || NominalWeight.heldAtZero(Weight.of(weight), Weight.of(nominal));
		}

		Member member() {
			return new Member(id, zone, nominal, heldOut());
		}

		Instance inZone(String newZone) {
			return new Instance(id, newZone, weight, nominal, held, ejected);
		}

		Instance held(boolean out) {
			return new Instance(id, zone, weight, nominal, out, ejected);
		}

		Instance ejected(boolean out) {
			return new Instance(id, zone, weight, nominal, held, out);
		}

		Instance weighted(int newWeight) {
			return new Instance(id, zone, newWeight,
					NominalWeight.after(Weight.of(nominal), Weight.of(newWeight), true).value(), held, ejected);
		}

	}

}
