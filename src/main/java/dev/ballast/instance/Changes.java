package dev.ballast.instance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.ballast.weight.UnroutableBudget;

/**
 * Changes to the instances of one locked service, stored together by {@link #commit()}:
 * the guard first, over all of them at once (a batch passes or fails whole), then each
 * change that clients would see under a new revision, in the order added.
 */
public final class Changes {

	private final LockedService service;

	private final Guard guard;

	private final List<Change> changes = new ArrayList<>();

	private final List<UnroutableBudget.Scope> scopes = new ArrayList<>();

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
	 * Guards, then stores.
	 * @throws dev.ballast.web.GuardBreachException when the guard refuses
	 */
	public Committed commit() {
		boolean forced = guard.guarded() && service.path().guard().check(service, takenOut(), scopes, guard);
		Map<InstanceId, Instance> stored = new LinkedHashMap<>();
		for (Change change : changes) {
			Instance result = store(change);
			stored.put(change.id(), result);
			service.stored(change.id(), result);
		}
		return new Committed(service, guard, forced, stored);
	}

	/**
	 * The instances these changes newly take out of rotation, as the budget counts. An
	 * ejection (a registration that reports itself critical, {@link ReportedHealth}) is
	 * bounded by the ejection cap, as lease expiry's is, not by the guard: the guard
	 * judges the rest of the change.
	 */
	private Set<InstanceId> takenOut() {
		Set<InstanceId> out = new LinkedHashSet<>();
		for (Change change : changes) {
			if (change.after() != null && change.after().heldOutByAction()
					&& (change.before() == null || !change.before().heldOut())) {
				out.add(change.id());
			}
		}
		return out;
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

	}

}
