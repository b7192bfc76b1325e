package dev.ballast.database;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Every PostgreSQL advisory lock the registry takes, in one place, so that no two jobs
 * share a key by accident. Each is a transaction-level lock: it is released when the
 * transaction that took it ends.
 *
 * <p>
 * The keys must never change: during a rolling upgrade nodes of the old and the new
 * version run against one database, and they only exclude each other while both take the
 * same key for the same job. The numeric keys spell "ballast" followed by a job number
 * (05 and 06 were never taken).
 */
public enum AdvisoryLock {

	/** The lease expiry sweep: one node at a time judges leases. */
	LEASE_SWEEP(0x62616c6c61737401L),

	/** Change log retention. */
	CHANGE_LOG_PRUNING(0x62616c6c61737402L),

	/** The mode scheduler: one node at a time applies due steps. */
	MODE_SCHEDULE(0x62616c6c61737403L),

	/** Reverting weight edits whose end time has come. */
	WEIGHT_OVERRIDES(0x62616c6c61737404L),

	/** Audit log retention. */
	AUDIT_PRUNING(0x62616c6c61737407L),

	/** Forgetting idempotent answers older than they are kept. */
	IDEMPOTENT_ANSWER_PRUNING(0x62616c6c61737408L),

	/**
	 * Creating the first admin token. Its key has always been the hash of a name,
	 * computed by the server; it stays so, because the hash is the server's to define.
	 */
	BOOTSTRAP_ADMIN("hashtext('ballast.bootstrap-admin')");

	/** A SQL expression of the lock's key: a literal, or the server's hash of a name. */
	private final String key;

	AdvisoryLock(long key) {
		this(Long.toString(key));
	}

	AdvisoryLock(String key) {
		this.key = key;
	}

	/**
	 * Takes the lock for the current transaction if no one holds it; call inside a
	 * transaction.
	 * @return false when another transaction (usually another node) holds it
	 */
	public boolean tryTake(JdbcClient jdbc) {
		return jdbc.sql("SELECT pg_try_advisory_xact_lock(" + key + ")").query(Boolean.class).single();
	}

	/**
	 * Takes the lock for the current transaction, waiting for whoever holds it at most
	 * the connection's {@code lock_timeout}; call inside a transaction.
	 */
	public void take(JdbcClient jdbc) {
		jdbc.sql("SELECT pg_advisory_xact_lock(" + key + ")").query().singleRow();
	}

	/**
	 * Takes, for the current transaction, the lock of one instance id that an entrance
	 * keeping each id in one service (Consul's) takes before it reads where the id is
	 * registered, so that two registrations of one id cannot both read "nowhere else".
	 * Waits like {@link #take}. The two-key form keeps these apart from the one-key locks
	 * above (PostgreSQL's two key spaces do not overlap); the first key spells "ball"
	 * (0x62616c6c), the second is the server's hash of the id (ids that share a hash only
	 * wait for each other).
	 */
	public static void takeForInstanceId(JdbcClient jdbc, String id) {
		jdbc.sql("SELECT pg_advisory_xact_lock(1650551916, hashtext(?))").param(id).query().singleRow();
	}

}
