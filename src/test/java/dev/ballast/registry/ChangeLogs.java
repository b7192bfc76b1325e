package dev.ballast.registry;

/**
 * Logs a change as the write path does, without the write, for tests of what follows the
 * log once a transaction commits or rolls back.
 */
public final class ChangeLogs {

	private ChangeLogs() {
	}

	public static void log(ChangeLog log, InstanceChanged change) {
		log.instance(change);
	}

}
