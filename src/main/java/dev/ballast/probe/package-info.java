/**
 * Health checks the registry runs itself: HTTP, TCP and gRPC probes with short timeouts,
 * shared among the live nodes so that each check is probed by one node at a time
 * ({@link ProbeOwners}), judged by thresholds ({@link CheckProgress}), and turned into
 * instance health through the lease module's one path, inside the ejection cap. The
 * checks themselves are registered with their instance (the instance module's
 * {@code Checks}). {@code GET /v1/nodes} shows the nodes that share the probing, the
 * checks each probes and how far each has written the heartbeats it absorbed.
 */
@ApplicationModule(allowedDependencies = { "database", "instance", "lease", "web" })
package dev.ballast.probe;

import org.springframework.modulith.ApplicationModule;
