/**
 * The append-only audit log: every accepted mutation (registrations, operator edits,
 * release modes, traffic shifts, and the changes the registry makes by itself) is written
 * by {@link dev.ballast.audit.AuditTrail} inside the transaction of the write, with who
 * ({@link dev.ballast.audit.Actors}), the request id, the resource before and after, the
 * weights converted under the NORMALIZE policy and whether the guard was forced.
 * {@code GET /v1/audit} reads it newest first; rows older than
 * {@code ballast.audit.retention} are pruned on one node at a time. The table refuses
 * UPDATE, and DELETE except by that pruning.
 */
@ApplicationModule(allowedDependencies = { "database", "web" })
package dev.ballast.audit;

import org.springframework.modulith.ApplicationModule;
