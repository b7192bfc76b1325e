package dev.ballast.database;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one synchronization of a kind that a component keeps per transaction (the rows it
 * appends, the changes it hands over at commit, {@link #afterCommit}): found among the
 * current transaction's synchronizations, or registered with it on first use, so that it
 * is suspended, resumed and ended with that transaction.
 */
public final class Synchronizations {

	private Synchronizations() {
	}

	/**
	 * The current transaction's synchronization of {@code type} that {@code mine}
	 * accepts, or null when it has none or synchronization is not active.
	 */
	public static <T extends TransactionSynchronization> T find(Class<T> type, Predicate<T> mine) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return null;
		}
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (type.isInstance(synchronization) && mine.test(type.cast(synchronization))) {
				return type.cast(synchronization);
			}
		}
		return null;
	}

	/**
	 * The current transaction's synchronization of {@code type} that {@code mine}
	 * accepts, registered from {@code created} if it has none yet.
	 * @throws IllegalStateException when synchronization is not active
	 */
	public static <T extends TransactionSynchronization> T findOrRegister(Class<T> type, Predicate<T> mine,
			Supplier<T> created) {
		T found = find(type, mine);
		if (found == null) {
			found = created.get();
			TransactionSynchronizationManager.registerSynchronization(found);
		}
		return found;
	}

	/**
	 * Adds {@code item} to what the current transaction hands {@code onCommit} once it
	 * commits, in the order added; nothing is handed over if it rolls back. One
	 * synchronization per transaction and {@code onCommit} (the same instance every
	 * call).
	 * @throws IllegalStateException when synchronization is not active
	 */
	public static <T> void afterCommit(Consumer<List<T>> onCommit, T item) {
		@SuppressWarnings("unchecked")
		Collected<T> collected = findOrRegister(Collected.class, found -> found.onCommit == onCommit,
				() -> new Collected<>(onCommit));
		collected.items.add(item);
	}

	/**
	 * Runs {@code action} once the current transaction commits, in the order added, and
	 * not at all if it rolls back (a write that runs again in a new transaction adds it
	 * again); at once outside a transaction. For what a write does beside the database: a
	 * counter, a log line.
	 */
	public static void afterCommit(Runnable action) {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			afterCommit(RUN, action);
		}
		else {
			action.run();
		}
	}

	/** Runs the actions of {@link #afterCommit(Runnable)}; one instance, found by it. */
	private static final Consumer<List<Runnable>> RUN = actions -> actions.forEach(Runnable::run);

	private static final class Collected<T> implements TransactionSynchronization {

		private final Consumer<List<T>> onCommit;

		private final List<T> items = new ArrayList<>();

		Collected(Consumer<List<T>> onCommit) {
			this.onCommit = onCommit;
		}

		@Override
		public void afterCommit() {
			onCommit.accept(List.copyOf(items));
		}

	}

}
