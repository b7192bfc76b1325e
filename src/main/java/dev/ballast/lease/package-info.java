/**
 * Leases: heartbeats absorbed in memory and flushed in batches, expiry on one node at a
 * time, the ejection cap (self-preservation) and the extension of leases after the
 * registry itself was not watching. Lease rules are pure ({@link Lease},
 * {@link SweepGap}; the cap is {@link dev.ballast.weight.EjectionCap}, beside the guard's
 * budget it shares its count of what is out with); state changes go through the registry
 * module.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "registry", "web", "weight" })
package dev.ballast.lease;

import org.springframework.modulith.ApplicationModule;
