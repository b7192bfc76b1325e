/**
 * Release modes: drains to weight 0, warm-ups, maintenance, and the guard that keeps
 * operator actions from taking too much of a service (or of a zone) out of rotation. The
 * ramps are stepped by a durable schedule in PostgreSQL that one node at a time applies;
 * a drain is complete only when the service's live subscribers have confirmed weight 0.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "instance", "watch", "web", "weight" })
package dev.ballast.release;

import org.springframework.modulith.ApplicationModule;
