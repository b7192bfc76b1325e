package dev.ballast.registry;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How a transaction locks, reads and writes the service and instance rows, chosen once
 * for the transaction ({@link WritePath}): a group's transaction keeps them in memory and
 * writes them, each service's revision once, just before it commits
 * ({@link WriteBehind.Rows}); any other transaction reads and writes them with a
 * statement each ({@link RowStatements}). The write path and its writers are the same
 * either way.
 */
sealed interface RowAccess permits RowStatements, WriteBehind.Rows {

	/** Locks a service's row; empty when it is not registered. */
	Optional<ServiceSettings> lockService(ServiceName name);

	/** Locks a service's row, creating it with default settings if it is new. */
	ServiceSettings lockOrCreateService(ServiceName name);

	/**
	 * Locks a service's row and one of its instances' (the order every writer takes them
	 * in); empty when the service is not registered.
	 */
	Optional<InstanceStore.ServiceWithInstance> lockWithInstance(ServiceName service, InstanceId id);

	/** Locks one instance of a locked service; empty when it is not registered. */
	Optional<Instance> lockInstance(ServiceName service, InstanceId id);

	/** Locks every instance of a locked service, sorted by id. */
	List<Instance> lockAll(ServiceName service);

	/**
	 * Makes every change of the transaction so far visible to a statement of its own that
	 * is about to run.
	 */
	void flush();

	/** Stores a changed instance under its service's next revision; what is stored. */
	Instance save(Instance changed);

	/** Stores a renewed lease, which spends no revision. */
	void renew(Instance renewed);

	/** Removes an instance under its service's next revision; that revision. */
	long remove(ServiceName service, InstanceId id);

	/**
	 * Replaces the checks of an instance stored in this transaction
	 * ({@link Checks#appendReplace}).
	 */
	void replaceChecks(ServiceName service, InstanceId id, List<CheckDefinition> definitions, boolean keepsLease,
			Instant now);

	/**
	 * Hands out a locked service's next revision for a change of the service row itself
	 * (its settings, its removal), which is then written by a statement.
	 */
	long nextRevision(ServiceName name);

	/** The service row as a statement of the transaction's own has just written it. */
	void updated(ServiceSettings settings);

}
