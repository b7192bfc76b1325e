package dev.ballast.registry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.ballast.database.CommitBatch;

import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The service and instance rows a group's transaction ({@link GroupCommit}) holds locked,
 * kept in memory with the changes its writes make to them, so that a write costs no
 * statement of its own: the group locks its services and the instances its writes name in
 * one statement when it begins, each write reads them here and hands out its revision
 * from the locked service's, and the changed rows are written at commit with the change
 * log and the audit ({@link CommitBatch}), each service's revision once, in one exchange.
 * <p>
 * What the transaction has not read here is read from the database, after writing what is
 * pending, so that every read sees every earlier write of the transaction. A row removed
 * and written again is written in between, so that the removal cascades as it would have.
 */
@Component
class WriteBehind {

	private final InstanceStore instances;

	private final ServiceStore services;

	private final CommitBatch batch;

	private final Checks checks;

	WriteBehind(InstanceStore instances, ServiceStore services, CommitBatch batch, Checks checks) {
		this.instances = instances;
		this.services = services;
		this.batch = batch;
		this.checks = checks;
	}

	/**
	 * Starts keeping the current transaction's rows, and locks the services of
	 * {@code targets} (sorted by name) with the instances they name, in one statement.
	 */
	void begin(List<Target> targets) {
		Rows rows = new Rows(this);
		TransactionSynchronizationManager.bindResource(this, rows);
		TransactionSynchronizationManager.registerSynchronization(rows);
		if (!targets.isEmpty()) {
			instances.lockGroup(targets, rows);
		}
	}

	/** The current transaction's rows, or null when it keeps none (it is no group's). */
	Rows current() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				? (Rows) TransactionSynchronizationManager.getResource(this) : null;
	}

	/** A service a write of the group is about, and the instance it names, if any. */
	record Target(ServiceName service, InstanceId id) {
	}

	private record Key(ServiceName service, InstanceId id) {
	}

	/** An instance's checks as a write of the group last replaced them. */
	private record CheckReplacement(List<CheckDefinition> definitions, boolean keepsLease, Instant now) {
	}

	/** One transaction's rows. */
	static final class Rows implements TransactionSynchronization, RowAccess {

		private final WriteBehind owner;

		private final Map<ServiceName, ServiceSettings> services = new HashMap<>();

		private final Map<Key, Optional<Instance>> read = new HashMap<>();

		/** The services whose every instance is in {@link #read}. */
		private final Set<ServiceName> allRead = new HashSet<>();

		/** The rows to write, each in its last state (empty: removed). */
		private final Map<Key, Optional<Instance>> changed = new LinkedHashMap<>();

		private final Map<ServiceName, Long> revisions = new LinkedHashMap<>();

		/**
		 * The checks to replace, each instance's last replacement: one batch removes an
		 * instance's check rows once and inserts its new ones once.
		 */
		private final Map<Key, CheckReplacement> checks = new LinkedHashMap<>();

		Rows(WriteBehind owner) {
			this.owner = owner;
		}

		/** The locked service's settings and revision, or null when not locked here. */
		ServiceSettings service(ServiceName name) {
			return services.get(name);
		}

		/**
		 * The locked instance (empty: not registered), or null when not read here.
		 */
		Optional<Instance> instance(ServiceName service, InstanceId id) {
			return read.get(new Key(service, id));
		}

		/** Keeps a service row the transaction has locked. */
		void locked(ServiceSettings settings) {
			services.put(settings.name(), settings);
		}

		/** Keeps an instance row the transaction has locked (null: not registered). */
		void locked(ServiceName service, InstanceId id, Instance instance) {
			read.put(new Key(service, id), Optional.ofNullable(instance));
		}

		@Override
		public Optional<ServiceSettings> lockService(ServiceName name) {
			ServiceSettings kept = services.get(name);
			if (kept != null) {
				return Optional.of(kept);
			}
			write();
			Optional<ServiceSettings> locked = owner.services.lock(name);
			locked.ifPresent(this::locked);
			return locked;
		}

		@Override
		public ServiceSettings lockOrCreateService(ServiceName name) {
			ServiceSettings kept = services.get(name);
			if (kept != null) {
				return kept;
			}
			write();
			ServiceSettings locked = owner.services.lockOrCreate(name);
			locked(locked);
			return locked;
		}

		@Override
		public Optional<InstanceStore.ServiceWithInstance> lockWithInstance(ServiceName service, InstanceId id) {
			ServiceSettings kept = services.get(service);
			Optional<Instance> instance = read.get(new Key(service, id));
			if (kept != null && instance != null) {
				return Optional.of(new InstanceStore.ServiceWithInstance(kept, instance));
			}
			write();
			Optional<InstanceStore.ServiceWithInstance> locked = owner.instances.lockWithService(service, id);
			locked.ifPresent(both -> {
				locked(both.settings());
				locked(service, id, both.instance().orElse(null));
			});
			return locked;
		}

		@Override
		public Optional<Instance> lockInstance(ServiceName service, InstanceId id) {
			Optional<Instance> kept = read.get(new Key(service, id));
			if (kept != null) {
				return kept;
			}
			write();
			Optional<Instance> locked = owner.instances.lock(service, id);
			locked(service, id, locked.orElse(null));
			return locked;
		}

		/**
		 * Read from the database once per transaction and service: after that every
		 * instance of the service is here, as the transaction's writes left it (they all
		 * go through these rows), so the group's other guarded writes of the service do
		 * not read its instances again. No other transaction adds or removes one
		 * meanwhile: each needs the service row, which this transaction holds locked
		 * until it ends (the caller locked it, see {@link RowAccess#lockAll}).
		 */
		@Override
		public List<Instance> lockAll(ServiceName service) {
			if (allRead.add(service)) {
				write();
				owner.instances.lockAll(service).forEach(instance -> locked(service, instance.id(), instance));
			}
			List<Instance> all = new ArrayList<>();
			read.forEach((key, instance) -> {
				if (key.service().equals(service)) {
					instance.ifPresent(all::add);
				}
			});
			all.sort(Comparator.comparing(instance -> instance.id().value()));
			return all;
		}

		@Override
		public void flush() {
			write();
		}

		@Override
		public Instance save(Instance changed) {
			Instance stored = changed.withRevision(spendRevision(changed.service()));
			put(stored);
			return stored;
		}

		@Override
		public void renew(Instance renewed) {
			put(renewed);
		}

		@Override
		public long remove(ServiceName service, InstanceId id) {
			long revision = spendRevision(service);
			Key key = new Key(service, id);
			changed.put(key, Optional.empty());
			read.put(key, Optional.empty());
			// Its check rows go with it (the foreign key cascades).
			checks.remove(key);
			return revision;
		}

		@Override
		public void replaceChecks(ServiceName service, InstanceId id, List<CheckDefinition> definitions,
				boolean keepsLease, Instant now) {
			checks.put(new Key(service, id), new CheckReplacement(definitions, keepsLease, now));
		}

		@Override
		public long nextRevision(ServiceName name) {
			write();
			return owner.services.nextRevision(name);
		}

		@Override
		public void updated(ServiceSettings settings) {
			services.put(settings.name(), settings);
		}

		/** Hands out a locked service's next revision, written with the rows. */
		private long spendRevision(ServiceName name) {
			ServiceSettings settings = services.get(name);
			long revision = settings.revision() + 1;
			services.put(name, settings.withRevision(revision));
			revisions.put(name, revision);
			return revision;
		}

		/** Stores an instance, as locked and read. */
		private void put(Instance instance) {
			Key key = new Key(instance.service(), instance.id());
			Optional<Instance> pending = changed.get(key);
			if (pending != null && pending.isEmpty()) {
				write();
			}
			changed.put(key, Optional.of(instance));
			read.put(key, Optional.of(instance));
		}

		/**
		 * Writes what is pending, with everything else the transaction appended, for a
		 * read or a statement of its own that must see it.
		 */
		private void write() {
			if (!changed.isEmpty() || !revisions.isEmpty()) {
				changed.forEach((key, row) -> row.ifPresentOrElse(owner.instances::appendUpsert,
						() -> owner.instances.appendDelete(key.service(), key.id())));
				revisions.forEach(owner.services::appendRevision);
				changed.clear();
				revisions.clear();
			}
			checks.forEach((key, replacement) -> owner.checks.appendReplace(key.service(), key.id(),
					replacement.definitions(), replacement.keepsLease(), replacement.now()));
			checks.clear();
			owner.batch.flush();
		}

		@Override
		public void beforeCommit(boolean readOnly) {
			write();
		}

		@Override
		public void afterCompletion(int status) {
			TransactionSynchronizationManager.unbindResourceIfPossible(owner);
		}

	}

}
