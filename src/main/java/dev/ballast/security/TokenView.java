package dev.ballast.security;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A token as listed: never its secret.
 *
 * @param id its identity
 * @param name what it is for
 * @param role what it may do
 * @param services a registrant's scope, or the services a scoped reader reads
 * @param writesPerSecond its own write rate limit, if it has one
 * @param createdAt when it was created
 * @param expiresAt when it stops working, if ever
 */
@Schema(name = "Token")
@JsonInclude(JsonInclude.Include.NON_NULL)
record TokenView(UUID id, String name, @Schema(allowableValues = {
		"reader", "registrant", "operator", "admin" }) String role, List<String> services, Integer writesPerSecond,
		Instant createdAt, Instant expiresAt){

	static TokenView of(Token token) {
		return new TokenView(token.id(), token.name(), token.role().json(),
				token.scope() == null ? null : token.scope().patterns(), token.writesPerSecond(), token.createdAt(),
				token.expiresAt());
	}

}
