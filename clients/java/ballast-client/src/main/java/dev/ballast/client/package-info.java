/**
 * Ballast's Java client, free of Spring and of any other library (Java 17+).
 *
 * <p>
 * A {@link dev.ballast.client.Registry} registers an instance, renews its lease, drains
 * it and deregisters it. A {@link dev.ballast.client.ServiceWatch} follows one service or
 * several over server-sent events, keeps each service's instances as an immutable
 * {@link dev.ballast.client.WatchedService} replaced atomically on every change, resumes
 * from the last event id after each disconnect, acknowledges the revisions it applied,
 * and refuses instance records whose weights are not JSON integers from 0 to 10000, so a
 * registry serving a weight as the string {@code "0"} cannot reach a balancer; a
 * {@link dev.ballast.client.SmoothWeightedBalancer} spreads picks over the instances in
 * proportion to their effective weights and never picks one at weight 0.
 */
package dev.ballast.client;
