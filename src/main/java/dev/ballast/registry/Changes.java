package dev.ballast.registry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.ballast.registry.Admission.Change;
import dev.ballast.weight.UnroutableBudget;

/**
 * Changes to the instances of one locked service, stored together by {@link #commit}: the
 * guard first, over all of them at once (a batch passes or fails whole), with the
 * capacity peaks they leave ({@link Admission}); then a traffic shift under way keeps its
 * members' shares exact over what the changes leave ({@link ShiftShares}); then each
 * change that clients would see is stored under a new revision, in the order added; then
 * the audit entries given with them are recorded ({@link Audit}).
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
	 * instances they give to others, so the guard counts only what they put on instances
	 * held out ({@link UnroutableBudget#moved}) besides the shift's own scope, and no
	 * scope remembers a peak.
	 */
	public Changes shifting() {
		shifting = true;
		return this;
	}

	/**
	 * Guards, then stores, then records what {@code audit} makes of what was stored.
	 * @throws dev.ballast.web.GuardBreachException when the guard refuses
	 */
	public Committed commit(Audit audit) {
		Objects.requireNonNull(audit, "audit");
		boolean forced = guard();
		List<Change> stored = changes;
		Shares shares = shifting ? null : shares();
		if (shares != null) {
			forced = guardShares(shares) || forced;
			stored = shares.merged();
		}
		Map<InstanceId, Instance> results = new LinkedHashMap<>();
		for (Change change : stored) {
			Instance result = store(change);
			results.put(change.id(), result);
			service.stored(change.id(), result);
		}
		Committed committed = new Committed(service, guard, forced, results);
		committed.record(audit);
		return committed;
	}

	/**
	 * Judges the changes ({@link Admission}), remembers the peaks they leave, and answers
	 * a breach.
	 * @return whether force passed a breach
	 */
	private boolean guard() {
		boolean checked = guard.guarded() && (!scopes.isEmpty() || changes.stream().anyMatch(Change::affectsBudget));
		boolean remembered = !shifting && changes.stream().anyMatch(Change::takesCapacity);
		if (!(checked || remembered)) {
			return false;
		}
		WritePath path = service.path();
		Instant now = path.now();
		Admission admission = Admission.judge(service.instances(), changes, guard.guarded(), shifting, scopes,
				service.settings(), shifting ? List.of() : path.peaks().live(service.name(), now), now,
				path.capacityWindow());
		if (!admission.peaks().isEmpty()) {
			path.peaks().add(service.name(), admission.peaks(), now);
		}
		return path.guard().answer(service, admission, guard);
	}

	/**
	 * What a traffic shift under way changes besides, to keep its shares exact over what
	 * these changes leave ({@link ShiftShares}), or null when it changes nothing. Asked
	 * only when some change moves what a shift shares.
	 */
	private Shares shares() {
		WritePath path = service.path();
		if (changes.stream().noneMatch(Change::movesShares) || !path.sharing(service)) {
			return null;
		}
		Map<InstanceId, Instance> before = new LinkedHashMap<>();
		Map<InstanceId, Instance> after = new LinkedHashMap<>();
		service.instances().forEach(instance -> {
			before.put(instance.id(), instance);
			after.put(instance.id(), instance);
		});
		for (Change change : changes) {
			if (change.after() == null) {
				after.remove(change.id());
			}
			else {
				after.put(change.id(), change.after());
			}
		}
		Map<InstanceId, Instance> shared = path.shares(service, before, after);
		if (shared.isEmpty()) {
			return null;
		}
		List<Change> moves = new ArrayList<>();
		shared.forEach((id, instance) -> moves.add(new Change(after.get(id), instance)));
		List<Change> merged = new ArrayList<>();
		for (Change change : changes) {
			Instance instance = change.after() == null ? null : shared.get(change.id());
			merged.add(instance == null ? change : new Change(change.before(), instance));
		}
		shared.forEach((id, instance) -> {
			if (merged.stream().noneMatch(change -> change.id().equals(id))) {
				merged.add(new Change(before.get(id), instance));
			}
		});
		List<Instance> unshared = after.values()
			.stream()
			.sorted((a, b) -> a.id().value().compareTo(b.id().value()))
			.toList();
		return new Shares(unshared, moves, merged);
	}

	/**
	 * Judges what keeping a shift's shares moves, as a move
	 * ({@link UnroutableBudget#moved}): it may shift weight between members that serve,
	 * but an action whose share changes would leave more capacity out (a member warming
	 * up given more weight than its ramp serves yet) is held to the budget like the
	 * action itself.
	 * @return whether force passed a breach
	 */
	private boolean guardShares(Shares shares) {
		WritePath path = service.path();
		Admission admission = Admission.judge(shares.unshared(), shares.moves(), guard.guarded(), true, List.of(),
				service.settings(), List.of(), path.now(), path.capacityWindow());
		return path.guard().answer(service, admission, guard);
	}

	/**
	 * A shift's shares kept over a set of changes.
	 *
	 * @param unshared the instances as the changes leave them, sorted by id
	 * @param moves what keeping the shares changes from there
	 * @param merged the changes with the shares kept, as they are stored
	 */
	private record Shares(List<Instance> unshared, List<Change> moves, List<Change> merged) {
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

}
