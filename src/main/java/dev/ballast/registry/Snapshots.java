package dev.ballast.registry;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import dev.ballast.database.ConnectionFailure;
import dev.ballast.web.NotFoundException;

import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads of the registry's state, each from one snapshot of the database, so that a
 * revision and the instances read with it always belong together: for the reads that
 * answer clients and for the module that follows the change log, which loads a service's
 * state when it starts following it.
 */
@Component
public class Snapshots {

	private final ServiceStore services;

	private final InstanceStore instances;

	private final TransactionTemplate snapshot;

	Snapshots(ServiceStore services, InstanceStore instances, PlatformTransactionManager transactions) {
		this.services = services;
		this.instances = instances;
		this.snapshot = new TransactionTemplate(transactions);
		this.snapshot.setReadOnly(true);
		this.snapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
	}

	/**
	 * Runs {@code reads} in one read-only transaction at REPEATABLE READ.
	 * @throws org.springframework.dao.DataAccessException when the database cannot answer
	 */
	public <T> T read(Supplier<T> reads) {
		return snapshot.execute(status -> reads.get());
	}

	/**
	 * {@code fromDatabase} in one snapshot; when the database cannot be reached, what
	 * {@code fromMemory} holds instead, marked stale. A state that memory does not hold
	 * is still a failure.
	 */
	public <T> Answer<T> answer(Supplier<T> fromDatabase, Supplier<Optional<T>> fromMemory) {
		try {
			return Answer.fresh(read(fromDatabase));
		}
		catch (RuntimeException ex) {
			if (!ConnectionFailure.isCauseOf(ex)) {
				throw ex;
			}
			return fromMemory.get().map(Answer::lastKnown).orElseThrow(() -> ex);
		}
	}

	/**
	 * The service's instances, sorted by id, with the revision they are current at.
	 * @throws NotFoundException when it is not registered
	 * @throws org.springframework.dao.DataAccessException when the database cannot answer
	 */
	public InstanceList load(ServiceName name) {
		return read(() -> {
			ServiceSettings settings = services.find(name)
				.orElseThrow(() -> new NotFoundException("service %s is not registered".formatted(name)));
			return list(name, settings);
		});
	}

	/**
	 * Like {@link #load}, for a read or a watcher that waits for a service that is not
	 * registered: then an empty list at the revision its name stands at, 0 or the last
	 * one it reached before it was removed (where its next registration continues).
	 */
	public InstanceList loadOrNone(ServiceName name) {
		return read(() -> services.find(name)
			.map(settings -> list(name, settings))
			.orElseGet(() -> new InstanceList(name.value(), services.unregisteredRevision(name), List.of(), null)));
	}

	private InstanceList list(ServiceName name, ServiceSettings settings) {
		return new InstanceList(name.value(), settings.revision(),
				instances.list(name).stream().map(InstanceView::of).toList(), LocalitySetting.of(settings.locality()));
	}

}
