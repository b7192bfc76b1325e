package dev.ballast.registry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import dev.ballast.audit.AuditTrail;
import dev.ballast.database.Synchronizations;
import dev.ballast.web.ConflictException;
import dev.ballast.web.NotFoundException;

import org.springframework.stereotype.Component;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one write path. Every change to a service or its instances, from every entrance
 * (the REST API, compatibility APIs, the console) and from the registry's own jobs (lease
 * expiry, mode steps, weight override ends, releases), goes through it, inside the
 * caller's transaction and in this order: lock the service row (or answer 404) →
 * {@link Guard guard} → skip what does not change → new revision → change-log row and
 * notification → audit (given with the changes: {@link Audit}). An entrance gets all of
 * it by calling {@link #lock}; nothing else writes the {@code instance} or
 * {@code service} tables but {@link Leases}, the lease columns that change nothing
 * clients watch.
 */
@Component
public class WritePath {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final BudgetGuard guard;

	private final ChangeLog log;

	private final AuditTrail audit;

	private final Clock clock;

	private final GroupCommit groups;

	private final WriteBehind behind;

	private final RowStatements statements;

	private final CapacityPeaks peaks;

	private final GuardSettings guardSettings;

	/**
	 * Registered at start by the module that runs traffic shifts ({@link #keepShares}).
	 */
	private volatile ShiftShares shift;

	WritePath(ServiceStore services, InstanceStore instances, BudgetGuard guard, ChangeLog log, AuditTrail audit,
			Clock clock, GroupCommit groups, WriteBehind behind, RowStatements statements, CapacityPeaks peaks,
			GuardSettings guardSettings) {
		this.statements = statements;
		this.peaks = peaks;
		this.guardSettings = guardSettings;
		this.log = log;
		this.groups = groups;
		this.behind = behind;
		this.services = services;
		this.instances = instances;
		this.guard = guard;
		this.audit = audit;
		this.clock = clock;
	}

	/**
	 * Runs one write (everything from {@link #lock} to the audit) in a transaction shared
	 * with the writes of other requests that arrive meanwhile, and returns once it has
	 * committed: many writes, one commit (see {@link GroupCommit}). The write must lock
	 * {@code service} first, touch nothing outside the transaction but through
	 * {@link Synchronizations#afterCommit(Runnable)}, and may run more than once (when a
	 * write of its group is refused, the others run again without it). Inside a
	 * transaction it just runs in it.
	 */
	public <T> T grouped(ServiceName service, InstanceId id, Supplier<T> write) {
		return groups.run(service, id, write);
	}

	/**
	 * Locks a service's row until the transaction ends; every writer of the service takes
	 * this lock first, so revisions are handed out and committed in order and the guard
	 * sees every concurrent writer's outcome.
	 * @throws NotFoundException when the service is not registered
	 */
	public LockedService lock(ServiceName service) {
		return lockIfPresent(service)
			.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(service)));
	}

	/**
	 * Like {@link #lock}, for the registry's own jobs: empty when the service is gone.
	 */
	public Optional<LockedService> lockIfPresent(ServiceName service) {
		requireTransaction();
		return rows().lockService(service).map(settings -> new LockedService(this, settings));
	}

	/** Like {@link #lock}, creating the service with default settings if it is new. */
	public LockedService lockOrCreate(ServiceName service) {
		requireTransaction();
		return new LockedService(this, rows().lockOrCreateService(service));
	}

	/**
	 * Like {@link #lockOrCreate(ServiceName)}, reading (and locking) one instance with
	 * the service in the same statement, for a write that is about that instance.
	 */
	public LockedService lockOrCreate(ServiceName service, InstanceId id) {
		requireTransaction();
		return rows().lockWithInstance(service, id).map(locked -> {
			LockedService lockedService = new LockedService(this, locked.settings());
			lockedService.stored(id, locked.instance().orElse(null));
			return lockedService;
		}).orElseGet(() -> lockOrCreate(service));
	}

	/**
	 * Refuses to register {@code id} in {@code service} while another service holds it,
	 * for entrances that name instances by id alone (Consul's). A rule that holds under
	 * any concurrency: every such registration takes the id's lock before it reads where
	 * the id is, so a racer reads only after the winner committed (or, in the same group,
	 * after the winner's rows were written), and sees it. Call after locking the service.
	 * @throws ConflictException naming the id and the service that holds it
	 */
	public void keepIdInOneService(ServiceName service, InstanceId id) {
		instances.lockId(id);
		rows().flush();
		List<ServiceName> others = instances.servicesHolding(id)
			.stream()
			.filter(holder -> !holder.equals(service))
			.toList();
		if (!others.isEmpty()) {
			throw new ConflictException(("ID \"%s\" is registered in service %s: Ballast keeps an instance in one "
					+ "service; deregister it there first")
				.formatted(id, others.getFirst()));
		}
	}

	/** Locks and reads one instance of a locked service. */
	Optional<Instance> lockInstance(ServiceName service, InstanceId id) {
		return rows().lockInstance(service, id);
	}

	/** Locks and reads every instance of a locked service, sorted by id. */
	List<Instance> lockAll(ServiceName service) {
		return rows().lockAll(service);
	}

	/**
	 * The current transaction's way to its rows: its group's, kept in memory, or a
	 * statement each.
	 */
	private RowAccess rows() {
		RowAccess group = behind.current();
		return group != null ? group : statements;
	}

	/**
	 * A lock lasts until the transaction ends, so there must be one to lock in. Checked
	 * here rather than by a transactional proxy, whose interceptor cost more on every
	 * write than the check.
	 */
	private static void requireTransaction() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalTransactionStateException("a write locks its service in the caller's transaction; "
					+ "there is none (write through grouped, or in a transaction)");
		}
	}

	public ServiceStore services() {
		return services;
	}

	InstanceStore instances() {
		return instances;
	}

	BudgetGuard guard() {
		return guard;
	}

	AuditTrail audit() {
		return audit;
	}

	CapacityPeaks peaks() {
		return peaks;
	}

	Duration capacityWindow() {
		return guardSettings.capacityWindow();
	}

	/**
	 * Registers the traffic shift's rule, which every set of changes then keeps
	 * ({@link Changes}); the module that runs shifts registers it once, at start.
	 * @throws IllegalStateException when a rule is registered already
	 */
	public void keepShares(ShiftShares rule) {
		if (shift != null) {
			throw new IllegalStateException("a traffic shift's rule is registered already: " + shift);
		}
		shift = rule;
	}

	/** Whether a traffic shift is under way in the service ({@link ShiftShares}). */
	boolean sharing(LockedService service) {
		ShiftShares rule = shift;
		return rule != null && rule.underWay(service);
	}

	/** What a traffic shift under way changes besides ({@link ShiftShares}). */
	Map<InstanceId, Instance> shares(LockedService service, Map<InstanceId, Instance> before,
			Map<InstanceId, Instance> after) {
		return shift.shares(service, before, after);
	}

	Instant now() {
		return clock.instant();
	}

	/** Stores a changed instance under a new revision and announces it. */
	Instance save(Instance changed) {
		Instance stored = rows().save(changed);
		log.instance(new InstanceChanged(stored.service(), stored.revision(), stored.id(), InstanceView.of(stored),
				clock.instant()));
		return stored;
	}

	/**
	 * Renews a lease without a revision: {@code renewed} is what is stored with only its
	 * lease times changed.
	 */
	void renew(Instance renewed) {
		rows().renew(renewed);
	}

	/**
	 * Replaces the checks of an instance this transaction stored; removing the instance
	 * removes them.
	 */
	public void replaceChecks(ServiceName service, InstanceId id, List<CheckDefinition> definitions,
			boolean keepsLease) {
		rows().replaceChecks(service, id, definitions, keepsLease, clock.instant());
	}

	/** Removes an instance under a new revision and announces it. */
	void remove(Instance instance) {
		long revision = rows().remove(instance.service(), instance.id());
		log.instance(new InstanceChanged(instance.service(), revision, instance.id(), null, clock.instant()));
	}

	/**
	 * Removes a locked service whose instances were removed in this transaction, under a
	 * new revision, and announces it: the row goes with everything that hangs on it
	 * (settings, capacity peaks, subscribers, releases), and its last revision is kept
	 * for the name, where a registration under it or a watcher of it starts.
	 */
	public void remove(LockedService locked) {
		ServiceName name = locked.name();
		long revision = rows().nextRevision(name);
		services.remove(name, revision);
		log.removed(new ServiceRemoved(name, revision, clock.instant()));
	}

	/** Stores changed settings under a new revision and announces them. */
	ServiceSettings save(ServiceSettings changed) {
		RowAccess rows = rows();
		long revision = rows.nextRevision(changed.name());
		ServiceSettings stored = changed.withRevision(revision);
		services.update(stored);
		rows.updated(stored);
		log.settings(new ServiceChanged(stored.name(), revision, SettingsView.of(stored), clock.instant()));
		return stored;
	}

}
