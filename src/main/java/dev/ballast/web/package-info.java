/**
 * What every HTTP endpoint shares: strict JSON reading (no coercion, no unknown fields,
 * no trailing tokens, no duplicate keys), binding of request bodies into typed records
 * with errors that name the field, what was expected and what was received, RFC 9457
 * problem details, and the OpenAPI description served to Swagger UI.
 */
@ApplicationModule(allowedDependencies = { "database", "weight" })
package dev.ballast.web;

import org.springframework.modulith.ApplicationModule;
