package dev.ballast.security;

/** The token a stream was opened with ({@link StreamCallers}). */
public final class StreamCaller {

	private final Token token;

	StreamCaller(Token token) {
		this.token = token;
	}

	/**
	 * The token's id, as {@link TokensInForce} lists it, and as the per-token caps count
	 * streams.
	 */
	public String id() {
		return token.id().toString();
	}

	/** Whether it may read {@code service}, as a REST read of that service asks. */
	public boolean reads(String service) {
		return Need.READER.metBy(token, service);
	}

	/** The token as a refusal names it: {@code token "edge" (reader for demo)}. */
	public String describe() {
		return token.describe();
	}

}
