/**
 * Health checks the registry runs itself: HTTP, TCP and gRPC probes, each cut at its
 * timeout from outside the exchange ({@link Deadline}) and connected only to an address
 * the check may reach, judged as resolved at each probe ({@link Dialer}); shared among
 * the live nodes so that each check is probed by one node at a time
 * ({@link ProbeOwners}), and among the services on each node so that none takes more than
 * its share of the probe slots ({@link ProbeSlots}); judged by thresholds
 * ({@link CheckProgress}), and turned into instance health, as state written until it
 * lands ({@link ProbeVerdicts}), through the lease module's one path, inside the ejection
 * cap. The checks themselves are registered with their instance (the registry module's
 * {@code Checks}). {@code GET /v1/nodes} shows the nodes that share the probing, the
 * checks each probes and how far each has written the heartbeats it absorbed.
 */
@ApplicationModule(allowedDependencies = { "database", "lease", "registry", "web" })
package dev.ballast.probe;

import org.springframework.modulith.ApplicationModule;
