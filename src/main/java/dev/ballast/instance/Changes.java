package dev.ballast.instance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.ballast.weight.UnroutableBudget;

/**
 * Changes to the instances of one locked service, stored together by {@link #commit()}:
 * the guard first, over all of them at once (a batch passes or fails whole), with the
 * capacity peaks they leave, then each change that clients would see under a new
 * revision, in the order added.
 */
public final class Changes {

	private final LockedService service;

	private final Guard guard;

	private final List<Change> changes = new ArrayList<>();

	private final List<UnroutableBudget.Scope> scopes = new ArrayList<>();

	private boolean shifting;

	Changes(LockedService service, Guard guard) {
		this.service = service;
		this.guard = guard;
	}

	/**
	 * Replaces {@code before} (null for a new instance) with {@code after}. A change only
	 * of lease times renews the lease without a revision.
	 */
	public Changes put(Instance before, Instance after) {
		Objects.requireNonNull(after, "after");
		changes.add(new Change(before, after));
		return this;
	}

	/** Removes an instance; removal is never guarded (the instance is leaving). */
	public Changes remove(Instance before) {
		Objects.requireNonNull(before, "before");
		changes.add(new Change(before, null));
		return this;
	}

	/** A further scope the guard checks, such as a traffic shift's. */
	public Changes scope(UnroutableBudget.Scope scope) {
		scopes.add(scope);
		return this;
	}

	/**
	 * Marks these changes as a traffic shift's: the capacity they take from some
	 * instances they give to others, so only the shift's own scope is guarded and no
	 * scope remembers a peak.
	 */
	public Changes shifting() {
		shifting = true;
		return this;
	}

	/**
	 * Guards, then stores.
	 * @throws dev.ballast.web.GuardBreachException when the guard refuses
	 */
	public Committed commit() {
		boolean forced = guard();
		Map<InstanceId, Instance> stored = new LinkedHashMap<>();
		for (Change change : changes) {
			Instance result = store(change);
			stored.put(change.id(), result);
			service.stored(change.id(), result);
		}
		return new Committed(service, guard, forced, stored);
	}

	/**
	 * Checks the budget when a change takes capacity out of rotation in some scope, and
	 * remembers the capacity a change takes out of a scope (a weight lowered, a zone
	 * left, an instance removed) as that scope's peak, guarded or not: what an unguarded
	 * removal took counts against the next guarded action.
	 * @return whether force passed a breach
	 */
	private boolean guard() {
		boolean checked = guard.guarded() && (!scopes.isEmpty() || changes.stream().anyMatch(Change::affectsBudget));
		boolean remembered = !shifting && changes.stream().anyMatch(Change::takesCapacity);
		WritePath path = service.path();
		if (shifting || !(checked || remembered)) {
			return checked && path.guard().check(service, List.of(), scopes, guard, List.of());
		}
		Instant now = path.now();
		List<Instance> all = service.instances();
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
		List<UnroutableBudget.Member> was = all.stream().map(Changes::member).toList();
		List<UnroutableBudget.Member> is = after.values().stream().map(Changes::member).toList();
		boolean forced = false;
		if (checked) {
			List<UnroutableBudget.Scope> instanceScopes = UnroutableBudget.scopes(was, is,
					path.peaks().live(service.name(), now), now);
			List<String> subjects = changes.stream()
				.filter(Change::affectsBudget)
				.map(change -> change.id().value())
				.toList();
			forced = path.guard().check(service, instanceScopes, scopes, guard, subjects);
		}
		if (remembered) {
			String cause = String.join("; ", changes.stream().map(Change::describe).flatMap(Optional::stream).toList());
			path.peaks()
				.add(service.name(), UnroutableBudget.peaks(was, is, now.plus(path.capacityWindow()), cause), now);
		}
		return forced;
	}

	private static UnroutableBudget.Member member(Instance instance) {
		return new UnroutableBudget.Member(instance.id().value(), instance.zone(), instance.nominalWeight().value(),
				instance.heldOut(), instance.holding());
	}

	private Instance store(Change change) {
		WritePath path = service.path();
		if (change.after() == null) {
			path.remove(change.before());
			return null;
		}
		Instance before = change.before();
		if (before != null && change.after().sameRegistrationAs(before)) {
			Instance renewed = change.after().withRevision(before.revision());
			if (!renewed.lastRenewedAt().equals(before.lastRenewedAt())) {
				path.renew(renewed);
			}
			return renewed;
		}
		return path.save(change.after());
	}

	private record Change(Instance before, Instance after) {

		InstanceId id() {
			return before != null ? before.id() : after.id();
		}

		/**
		 * Whether it may raise the unroutable share of some scope, so the guard must see
		 * it: it holds the instance out, lowers its weight, moves it to another zone, or
		 * raises the weight of an instance held out. A removal does not count (the
		 * instance is leaving), nor a new instance in rotation, which only adds capacity.
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
					|| is < was || (after.heldOut() && is > was);
		}

		/**
		 * Whether it lowers the capacity of some scope: its weight, its zone or removal.
		 */
		boolean takesCapacity() {
			return before != null && before.nominalWeight().value() > 0
					&& (after == null || after.nominalWeight().value() < before.nominalWeight().value()
							|| !Objects.equals(after.zone(), before.zone()));
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
