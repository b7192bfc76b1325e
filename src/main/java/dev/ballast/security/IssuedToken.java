package dev.ballast.security;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A token just created, with its secret: the only time the secret is shown.
 *
 * @param id its identity
 * @param token the secret, for {@code Authorization: Bearer <token>}
 * @param name what it is for
 * @param role what it may do
 * @param services a registrant's scope
 * @param writesPerSecond its own write rate limit, if it has one
 * @param createdAt when it was created
 * @param expiresAt when it stops working, if ever
 */
@Schema(name = "IssuedToken")
@JsonInclude(JsonInclude.Include.NON_NULL)
record IssuedToken(UUID id,
		@Schema(description = "The secret. Shown only now: the registry keeps only its hash.",
				example = "blst_3q2-7wzR0v5bX1m1pQ9c8kT4yW6uA2sD0fG7hJ5lK3o") String token,
		String name, @Schema(allowableValues = {
				"reader", "registrant", "operator", "admin" }) String role,
		List<String> services, Integer writesPerSecond, Instant createdAt, Instant expiresAt){

	static IssuedToken of(Token token, String secret) {
		TokenView view = TokenView.of(token);
		return new IssuedToken(view.id(), secret, view.name(), view.role(), view.services(), view.writesPerSecond(),
				view.createdAt(), view.expiresAt());
	}

}
