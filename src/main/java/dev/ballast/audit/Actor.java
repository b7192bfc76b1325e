package dev.ballast.audit;

/**
 * Who made a change: the token that authenticated the request.
 *
 * @param tokenId the token's id
 * @param tokenName the name it was given at creation
 */
public record Actor(String tokenId, String tokenName) {

	/** Requests that carried no token. */
	public static final Actor ANONYMOUS = new Actor("anonymous", "anonymous");

	/**
	 * The registry itself: lease expiry, the end of a timed override, automatic steps.
	 */
	public static final Actor SYSTEM = new Actor("system", "system");

	public Actor {
		if (tokenId == null || tokenName == null) {
			throw new IllegalArgumentException(
					"an actor needs a token id and a token name; got %s and %s".formatted(tokenId, tokenName));
		}
	}

}
