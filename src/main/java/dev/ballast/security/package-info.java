/**
 * Who may do what: bearer tokens (random secrets, kept only as hashes), their roles
 * ({@code admin} ⊃ {@code operator} ⊃ {@code reader}, and {@code registrant} scoped to
 * service-name patterns), the first admin token, and the per-token write rate limit.
 * Everything needs a token but what holds no registry data (health probes, the Swagger UI
 * page and the OpenAPI document, the console's static files) and the two Consul reads its
 * clients send without one (the leader status, and the catalog's service list, answered
 * empty): one list of rules, {@link dev.ballast.security.AccessRules}.
 */
@ApplicationModule(allowedDependencies = { "audit", "database", "web" })
package dev.ballast.security;

import org.springframework.modulith.ApplicationModule;
