/**
 * Leases: heartbeats absorbed in memory and flushed in batches, expiry on one node at a
 * time, the ejection cap (self-preservation) and the extension of leases after the
 * registry itself was not watching. Lease rules are pure ({@link Lease},
 * {@link EjectionCap}, {@link SweepGap}); state changes go through the instance module.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "instance", "web", "weight" })
package dev.ballast.lease;

import org.springframework.modulith.ApplicationModule;
