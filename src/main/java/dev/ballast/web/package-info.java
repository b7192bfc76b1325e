/**
 * What every HTTP endpoint shares: strict JSON reading (no coercion, no unknown fields,
 * no trailing tokens, no duplicate keys), binding of request bodies into typed records
 * with errors that name the field, what was expected and what was received, RFC 9457
 * problem details with one jittered {@code Retry-After} for every "not now"
 * ({@link dev.ballast.web.RetryAfter}) and one way of quoting a refused value
 * ({@link dev.ballast.web.Quoted}), the border's rule for storable text, body limits,
 * {@code Idempotency-Key} answers kept for a day (the {@code idempotent_answer} table),
 * the short ways of the most frequent requests (heartbeats, registrations), and the
 * OpenAPI description served to Swagger UI.
 */
@ApplicationModule(allowedDependencies = { "database", "weight" })
package dev.ballast.web;

import org.springframework.modulith.ApplicationModule;
