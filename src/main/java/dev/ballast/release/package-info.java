/**
 * Release modes and traffic shifts: drains to weight 0, warm-ups, maintenance, and
 * releases that move a share of the weight that serves from one group of instances to
 * another, kept exact as their members change ({@link dev.ballast.registry.ShiftShares}).
 * Every change goes through the registry module's write path, which guards it. The ramps
 * are stepped by a durable schedule in PostgreSQL that one node at a time applies; a
 * drain is complete only when the service's live subscribers have confirmed weight 0.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "instance", "registry", "watch", "web", "weight" })
package dev.ballast.release;

import org.springframework.modulith.ApplicationModule;
