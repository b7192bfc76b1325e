/**
 * Registration, reads and operator edits of services and their instances, over HTTP and
 * for the other entrances (the Consul-compatible one): each write goes through the
 * registry module's write path ({@link dev.ballast.registry.WritePath}), each read
 * answers from one snapshot of the database or, while it is unreachable, from the state
 * this node applied from the change log (the watch module's), and blocking reads wait on
 * it.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "registry", "watch", "web", "weight" })
package dev.ballast.instance;

import org.springframework.modulith.ApplicationModule;
