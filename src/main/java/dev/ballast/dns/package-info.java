/**
 * The DNS responder: SRV, A and AAAA answers for the registry's services over UDP and
 * TCP, for HAProxy's {@code resolvers} + {@code server-template} and every other SRV
 * reader. Answers come from memory (what this node last read of each service asked for,
 * or the newer state it applied from the change log), never from a database query per DNS
 * query, and keep coming while the database is unreachable. Weights are translated so
 * that HAProxy routes the share Ballast means ({@link dev.ballast.dns.SrvWeights}); an
 * instance draining at effective weight 0 keeps its record at SRV weight 0. Off unless
 * {@code ballast.dns.port} is set. See {@code docs/dns.md}.
 */
@ApplicationModule(allowedDependencies = { "database", "registry", "watch", "web", "weight" })
package dev.ballast.dns;

import org.springframework.modulith.ApplicationModule;
