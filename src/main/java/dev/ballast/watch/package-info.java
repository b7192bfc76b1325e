/**
 * Change streams: watchers (SSE, blocking queries) follow the per-service change log and
 * learn from it exactly what changed after a revision. The log is the registry module's
 * ({@link dev.ballast.registry.ChangeLog}: the append, the reads, the retention); this
 * module follows it.
 *
 * <p>
 * An event travels on two threads. {@link dev.ballast.watch.ChangeFollower}'s reader
 * thread alone reads the database: after a notification or a catch-up it reads the change
 * log (through the registry's reads, on the feed's own connections), loads the state of a
 * service it starts following, and reads what a resuming stream missed. It hands what it
 * read, in revision order, to {@link dev.ballast.watch.Streams}' delivering thread, which
 * applies it to each service's state and queues it to the live streams and waiting
 * queries of the service, and never waits for the database. This node's own commits reach
 * the delivering thread straight from the commit (it registers with
 * {@link dev.ballast.registry.ChangeLog#onCommitted} at start), ahead of their
 * notification; the reader skips what it applied that way. Every exit (the REST reads,
 * Consul, DNS, xDS, Prometheus) asks this module for the applied state and for blocking
 * waits ({@link dev.ballast.watch.BlockingQueries}), and for catalog-wide reads
 * ({@link dev.ballast.watch.CatalogReads}); while the database is unreachable the reads
 * answer from what this module last applied or read
 * ({@link dev.ballast.watch.AppliedServices}).
 */
@ApplicationModule(allowedDependencies = { "database", "registry", "security", "web", "weight" })
package dev.ballast.watch;

import org.springframework.modulith.ApplicationModule;
