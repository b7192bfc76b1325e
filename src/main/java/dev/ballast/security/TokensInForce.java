package dev.ballast.security;

import java.util.Set;

/**
 * Published whenever a node reloads its tokens, and when one of them expires: the ids of
 * every token it now accepts (none expired). Whatever outlives a request, such as an open
 * watch stream, ends when its token is no longer among them, so a deleted token stops
 * working at once everywhere, and an expired one at its expiry.
 *
 * @param ids token ids, as the authenticated request's principal name gives them
 */
public record TokensInForce(Set<String> ids) {

	public TokensInForce {
		ids = Set.copyOf(ids);
	}

}
