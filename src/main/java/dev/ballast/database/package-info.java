/**
 * Where the registry keeps its state, and whether the node reaches it. With no
 * {@code spring.datasource.url} configured, a real PostgreSQL server is started from the
 * embedded binaries, with its files under {@code ballast.data-dir} so that they survive
 * restarts; with a datasource configured, Spring Boot connects to that server instead.
 * Either way {@link dev.ballast.database.Reachability} probes the server and, while it is
 * unreachable, shuts the pool so that callers fail at once and serve from memory; it
 * announces {@link dev.ballast.database.DatabaseLost} and
 * {@link dev.ballast.database.DatabaseRestored}. It also holds the one way of each thing
 * every module's use of the database shares: rows written in one exchange before a commit
 * ({@link dev.ballast.database.CommitBatch}), advisory locks
 * ({@link dev.ballast.database.AdvisoryLock}), periodic jobs
 * ({@link dev.ballast.database.PeriodicJobs}), this node's identity
 * ({@link dev.ballast.database.ThisNode}) and what each node states about itself, that it
 * probes and how far it wrote lease renewals ({@link dev.ballast.database.NodeFacts}).
 */
@ApplicationModule(allowedDependencies = {})
package dev.ballast.database;

import org.springframework.modulith.ApplicationModule;
