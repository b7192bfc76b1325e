package dev.ballast.security;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.ballast.audit.Action;
import dev.ballast.audit.AuditEntry;
import dev.ballast.audit.AuditTrail;
import dev.ballast.web.ConflictException;
import dev.ballast.web.InvalidRequestException;
import dev.ballast.web.NotFoundException;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** Creates and deletes tokens. */
@Component
class TokenIssuer {

	private final TokenStore store;

	private final AuditTrail audit;

	private final Clock clock;

	TokenIssuer(TokenStore store, AuditTrail audit, Clock clock) {
		this.store = store;
		this.audit = audit;
		this.clock = clock;
	}

	@Transactional
	IssuedToken issue(TokenRequest request) {
		Role role = Role.parse(request.role());
		ServiceScope scope = scope(role, request.services());
		Instant now = clock.instant();
		if (request.expiresAt() != null && !request.expiresAt().isAfter(now)) {
			throw InvalidRequestException.of("/expiresAt",
					"must be in the future; got %s, and it is %s".formatted(request.expiresAt(), now));
		}
		String secret = Secret.generate();
		Token token = new Token(UUID.randomUUID(), request.name(), role, scope, request.writesPerSecond(), now,
				request.expiresAt());
		store.insert(token, Secret.sha256(secret));
		audit.record(AuditEntry.of(Action.TOKEN_CREATE, null, null, null, TokenView.of(token)));
		return IssuedToken.of(token, secret);
	}

	@Transactional
	void revoke(UUID id) {
		List<Token> all = store.listed();
		Token token = all.stream()
			.filter(candidate -> candidate.id().equals(id))
			.findFirst()
			.orElseThrow(() -> new NotFoundException("no token " + id));
		if (token.role() == Role.ADMIN && !token.expiredAt(clock.instant())
				&& store.adminsValidAtLocked(clock.instant()) <= 1) {
			throw new ConflictException(
					"token %s is the last admin token; create another admin token before deleting it".formatted(id));
		}
		store.delete(id);
		audit.record(AuditEntry.of(Action.TOKEN_DELETE, null, null, TokenView.of(token), null));
	}

	private static ServiceScope scope(Role role, List<String> services) {
		if (role == Role.OPERATOR || role == Role.ADMIN) {
			if (services != null) {
				throw InvalidRequestException.of("/services",
						"only a registrant or a reader token is scoped to services; a %s token may not have services"
							.formatted(role.json()));
			}
			return null;
		}
		if (services == null) {
			if (role == Role.REGISTRANT) {
				throw InvalidRequestException.of("/services",
						"a registrant token needs the services it may register in, e.g. [\"payments-*\"]");
			}
			return null;
		}
		try {
			return new ServiceScope(services);
		}
		catch (IllegalArgumentException ex) {
			throw InvalidRequestException.of("/services", ex.getMessage());
		}
	}

}
