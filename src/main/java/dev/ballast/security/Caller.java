package dev.ballast.security;

import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/** An authenticated request: the token that made it, with its roles as authorities. */
final class Caller extends AbstractAuthenticationToken {

	private final Token token;

	Caller(Token token) {
		super(token.role().granted().stream().map(role -> new SimpleGrantedAuthority("ROLE_" + role.name())).toList());
		this.token = token;
		setAuthenticated(true);
	}

	Token token() {
		return token;
	}

	@Override
	public Object getCredentials() {
		return "";
	}

	@Override
	public Object getPrincipal() {
		return token.name();
	}

	/**
	 * The token's id: unique, unlike its name, so per-caller state can be keyed by it.
	 */
	@Override
	public String getName() {
		return token.id().toString();
	}

}
