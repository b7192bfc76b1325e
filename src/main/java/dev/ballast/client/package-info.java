/**
 * A reference client for the registry's watch streams, free of Spring so that any Java
 * service can copy it: a {@link dev.ballast.client.ServiceWatch} follows one service or
 * several over server-sent events, keeps each service's instances as an immutable
 * {@link dev.ballast.client.WatchedService} replaced atomically on every change, resumes
 * from the last event id after each disconnect, acknowledges the revisions it applied,
 * and refuses instance records whose weights are not JSON integers from 0 to 10000, so a
 * registry serving a weight as the string {@code "0"} cannot reach a balancer; a
 * {@link dev.ballast.client.SmoothWeightedBalancer} spreads picks over the instances in
 * proportion to their effective weights.
 */
@ApplicationModule(allowedDependencies = {})
package dev.ballast.client;

import org.springframework.modulith.ApplicationModule;
