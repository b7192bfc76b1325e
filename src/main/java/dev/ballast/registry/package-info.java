/**
 * The registry's state and the one write transaction: services and their instances (the
 * model), the stores of the {@code service}, {@code instance} (its lease columns:
 * {@link dev.ballast.registry.Leases}), {@code health_check}, {@code capacity_peak} and
 * {@code change_log} tables, and {@link dev.ballast.registry.WritePath}, through which
 * every change to them goes in this order: lock the service row →
 * {@link dev.ballast.registry.Guard guard} → skip what does not change → new revision →
 * change-log row and notification ({@link dev.ballast.registry.ChangeLog}, owner of
 * {@code change_log}: the append, the reads the watch module follows it with, the
 * retention) → audit, given with the changes ({@link dev.ballast.registry.Audit}).
 * Concurrent writes share a commit ({@link dev.ballast.registry.GroupCommit}). A write
 * that changes nothing bumps nothing. What other modules own and this one needs is
 * registered with it at start, never reached for: the watch's and the lease module's
 * hand-over after commit ({@link dev.ballast.registry.ChangeLog#onCommitted}), a traffic
 * shift's shares ({@link dev.ballast.registry.ShiftShares}), the release under way in the
 * service list ({@link dev.ballast.registry.ReleasesUnderWay}).
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "web", "weight" })
package dev.ballast.registry;

import org.springframework.modulith.ApplicationModule;
