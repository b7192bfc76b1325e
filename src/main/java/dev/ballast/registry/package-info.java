/**
 * The registry's state and the one write transaction: services and their instances (the
 * model), the stores of the {@code service}, {@code instance} (its lease columns:
 * {@link dev.ballast.registry.Leases}), {@code health_check}, {@code capacity_peak} and
 * {@code change_log} tables, and {@link dev.ballast.registry.WritePath}, through which
 * every change to them goes in this order: lock the service row →
 * {@link dev.ballast.registry.Guard guard} → skip what does not change → new revision →
 * change-log row and notification ({@link dev.ballast.registry.ChangeLog}, owner of
 * {@code change_log}) → audit. Concurrent writes share a commit
 * ({@link dev.ballast.registry.GroupCommit}). A write that changes nothing bumps nothing.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "web", "weight" })
package dev.ballast.registry;

import org.springframework.modulith.ApplicationModule;
