package dev.ballast.security;

import java.util.Set;

/**
 * Published whenever a node reloads its tokens: the ids of every token it now accepts.
 * Whatever outlives a request, such as an open watch stream, ends when its token is no
 * longer among them, so a deleted token stops working at once everywhere.
 *
 * @param ids token ids, as the authenticated request's principal name gives them
 */
public record TokensInForce(Set<String> ids) {

	public TokensInForce {
		ids = Set.copyOf(ids);
	}

}
