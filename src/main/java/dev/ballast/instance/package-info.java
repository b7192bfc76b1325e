/**
 * Services and their instances: registration and deregistration, the instance record and
 * the service settings, queries, and operator edits. Every write locks the service row,
 * bumps the service's revision and announces the change to every {@link Changed}
 * ({@link InstanceChanged}, {@link ServiceChanged}, {@link ServiceRemoved}) inside the
 * same transaction, so that the change log always matches the state; a write that changes
 * nothing bumps nothing.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "web", "weight" })
package dev.ballast.instance;

import org.springframework.modulith.ApplicationModule;
