package dev.ballast.security;

import java.util.Optional;

import org.springframework.stereotype.Component;

/**
 * Authenticates the callers of streams that do not come through the HTTP filter chain
 * (the xDS server's), by the same tokens held in memory and under the same rules as every
 * REST call: a token that is unknown, deleted or expired is no caller, and what a caller
 * may read is what {@link AccessRules} let it read over REST. A stream that outlives its
 * token ends on the next {@link TokensInForce} that leaves its {@link StreamCaller#id()}
 * out.
 */
@Component
public class StreamCallers {

	private final Tokens tokens;

	StreamCallers(Tokens tokens) {
		this.tokens = tokens;
	}

	/** The caller with this secret, unless its token is unknown or expired. */
	public Optional<StreamCaller> authenticate(String secret) {
		return tokens.authenticate(secret).map(caller -> new StreamCaller(caller.token()));
	}

	/**
	 * The secret of an {@code Authorization} header's value ({@code Bearer <token>}), or
	 * empty when it is not a bearer token.
	 */
	public static Optional<String> bearer(String header) {
		return header == null ? Optional.empty() : BearerTokens.secret(header);
	}

}
