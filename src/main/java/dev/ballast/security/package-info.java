/**
 * Who may do what: bearer tokens (random secrets, kept only as hashes), their roles
 * ({@code admin} ⊃ {@code operator} ⊃ {@code reader}, and {@code registrant} scoped to
 * service-name patterns), the first admin token, and the per-token write rate limit.
 * Everything but health probes and the Swagger UI page needs a token.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "web" })
package dev.ballast.security;

import org.springframework.modulith.ApplicationModule;
