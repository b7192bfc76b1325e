package dev.ballast.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.ballast.weight.CapacityPeak;
import dev.ballast.weight.MaxUnroutable;
import dev.ballast.weight.UnroutableBudget.Breach;
import dev.ballast.weight.UnroutableBudget;

/**
 * The guard's verdict on a set of changes to one service, and the capacity peaks they
 * leave: pure, so that the write path ({@link Changes}) and the model of the instance
 * state machine judge alike.
 * <p>
 * A set is checked when it is guarded and some change may raise the unroutable share of a
 * scope ({@link Change#affectsBudget()}). A traffic shift's set moves capacity between
 * instances: it is checked in scopes that count only what the instances held out carry
 * ({@link UnroutableBudget#moved}) and in its own scope, and leaves no peak. Any other
 * set is checked against each scope's base ({@link UnroutableBudget#scopes}) and leaves a
 * peak where it lowers a scope's capacity, guarded or not: what an unguarded removal took
 * counts against the next guarded action.
 *
 * @param breach the first scope whose budget the set would break, if any
 * @param ownBudget whether {@code breach} is of {@code maxUnroutable} (else of
 * {@code maxUnroutablePercent}, in a further scope)
 * @param peaks the peaks the set leaves
 * @param subjects the instances whose changes the guard judged, for refusals
 */
record Admission(Optional<Breach> breach, boolean ownBudget, List<CapacityPeak> peaks, List<String> subjects) {

	/**
	 * @param all the service's instances before the changes, sorted by id
	 * @param changes the changes, in order
	 * @param guarded whether the budget applies
	 * @param shifting whether the set moves capacity rather than taking it
	 * @param extra further scopes, such as a traffic shift's
	 * @param settings the service's settings
	 * @param peaks the service's peaks
	 * @param now the time of the changes
	 * @param window how long a peak counts
	 */
	static Admission judge(List<Instance> all, List<Change> changes, boolean guarded, boolean shifting,
			List<UnroutableBudget.Scope> extra, ServiceSettings settings, List<CapacityPeak> peaks, Instant now,
			Duration window) {
		boolean checked = guarded && (!extra.isEmpty() || changes.stream().anyMatch(Change::affectsBudget));
		boolean remembered = !shifting && changes.stream().anyMatch(Change::takesCapacity);
		if (!(checked || remembered)) {
			return new Admission(Optional.empty(), false, List.of(), List.of());
		}
		Map<InstanceId, Instance> after = new LinkedHashMap<>();
		all.forEach(instance -> after.put(instance.id(), instance));
		for (Change change : changes) {
			if (change.after() == null) {
				after.remove(change.id());
			}
			else {
				after.put(change.id(), change.after());
			}
		}
		List<UnroutableBudget.Member> was = all.stream().map(Admission::member).toList();
		List<UnroutableBudget.Member> is = after.values().stream().map(Admission::member).toList();
		Optional<Breach> breach = Optional.empty();
		boolean own = false;
		List<String> subjects = List.of();
		if (checked) {
			List<UnroutableBudget.Scope> scopes = shifting ? UnroutableBudget.moved(was, is)
					: UnroutableBudget.scopes(was, is, peaks, now);
			breach = UnroutableBudget.check(scopes, settings.maxUnroutable());
			own = breach.isPresent();
			if (!own) {
				breach = UnroutableBudget.check(extra, MaxUnroutable.percentOf(settings.maxUnroutablePercent()));
			}
			// A shift is named by its release, not by the many weights it moves.
			subjects = shifting ? List.of()
					: changes.stream().filter(Change::affectsBudget).map(change -> change.id().value()).toList();
		}
		List<CapacityPeak> left = List.of();
		if (remembered) {
			String cause = String.join("; ", changes.stream().map(Change::describe).flatMap(Optional::stream).toList());
			left = UnroutableBudget.peaks(was, is, now.plus(window), cause);
		}
		return new Admission(breach, own, left, subjects);
	}

	/** An instance as the guard sees it. */
	static UnroutableBudget.Member member(Instance instance) {
		return new UnroutableBudget.Member(instance.id().value(), instance.zone(), instance.nominalWeight().value(),
				instance.serving(), instance.holding());
	}

	/**
	 * One change: {@code before} null for a new instance, {@code after} null for a
	 * removal.
	 */
	record Change(Instance before, Instance after) {

		Change {
			if (before == null && after == null) {
				throw new IllegalArgumentException("a change needs a before or an after");
			}
		}

		InstanceId id() {
			return before != null ? before.id() : after.id();
		}

		/**
		 * Whether it may raise the unroutable share of some scope, so the guard must see
		 * it: it holds the instance out, lowers its weight, moves it to another zone, or
		 * raises the weight of an instance that does not serve all of it (held out, or
		 * warming up). A removal does not count (the instance is leaving), nor a new
		 * instance in rotation, which only adds capacity.
		 */
		boolean affectsBudget() {
			if (after == null) {
				return false;
			}
			// An ejection (a registration that reports itself critical, ReportedHealth)
			// is bounded by the ejection cap, as lease expiry's is, not by the guard.
			if (before == null) {
				return after.heldOutByAction();
			}
			int was = before.nominalWeight().value();
			int is = after.nominalWeight().value();
			return !Objects.equals(after.zone(), before.zone()) || (after.heldOutByAction() && !before.heldOut())
					|| is < was || (after.serving() < is && is > was);
		}

		/**
		 * Whether it lowers the capacity of some scope: its weight, its zone or removal.
		 */
		boolean takesCapacity() {
			return before != null && before.nominalWeight().value() > 0
					&& (after == null || after.nominalWeight().value() < before.nominalWeight().value()
							|| !Objects.equals(after.zone(), before.zone()));
		}

		/**
		 * Whether it changes what a traffic shift shares: a weight, whether the instance
		 * can take traffic, or the instance itself (new or removed).
		 */
		boolean movesShares() {
			return before == null || after == null || !after.weight().equals(before.weight())
					|| after.heldOut() != before.heldOut();
		}

		/** What it took, in words for the peak it leaves; empty when it took nothing. */
		Optional<String> describe() {
			if (!takesCapacity()) {
				return Optional.empty();
			}
			if (after == null) {
				return Optional.of(before.id() + " removed");
			}
			if (!Objects.equals(after.zone(), before.zone())) {
				return Optional.of("%s moved from zone %s to %s".formatted(before.id(), before.zone(), after.zone()));
			}
			return Optional.of("%s's weight lowered from %d to %d".formatted(before.id(),
					before.nominalWeight().value(), after.nominalWeight().value()));
		}

	}

}
