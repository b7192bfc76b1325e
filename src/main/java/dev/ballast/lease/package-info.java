/**
 * Leases: heartbeats absorbed in memory and flushed in batches, expiry on one node at a
 * time, the ejection cap (self-preservation) and the extension of leases after the
 * registry itself was not watching. Lease rules are pure ({@link Lease},
 * {@link SweepGap}; the cap is {@link dev.ballast.weight.EjectionCap}, beside the guard's
 * budget it shares its count of what is out with); state changes and the lease columns go
 * through the registry module ({@link dev.ballast.registry.Leases}), and how far each
 * node wrote the renewals it absorbed is a fact of the node table
 * ({@link dev.ballast.database.NodeFacts}).
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "registry", "web", "weight" })
package dev.ballast.lease;

import org.springframework.modulith.ApplicationModule;
