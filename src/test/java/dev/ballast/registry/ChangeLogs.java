package dev.ballast.registry;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Logs a change as the write path does, without the write, for tests of what follows the
 * log when a transaction rolls back. Only in a transaction that rolls back: committed,
 * the change would be a revision its service's counter never spent, and the service's
 * next write (a lease sweep's, in the shared test database) would collide with it and
 * fail.
 */
public final class ChangeLogs {

	private ChangeLogs() {
	}

	public static void logAndRollBack(PlatformTransactionManager transactions, ChangeLog log, InstanceChanged change) {
		new TransactionTemplate(transactions).executeWithoutResult(status -> {
			log.instance(change);
			status.setRollbackOnly();
		});
	}

}
