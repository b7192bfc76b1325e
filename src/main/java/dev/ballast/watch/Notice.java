package dev.ballast.watch;

/**
 * What a change notification says ({@link dev.ballast.registry.ChangeLog#CHANNEL}): the
 * service that changed and its revision, as {@code service:revision}. The revision lets a
 * node skip reading the log for a change it applied already (its own commits); a payload
 * without one (a plain service name) means "read whatever is new".
 *
 * @param service the service that changed
 * @param revision its revision after the change, or {@link #UNKNOWN}
 */
record Notice(String service, long revision) {

	/** Read whatever is new: the notification did not say how far. */
	static final long UNKNOWN = Long.MAX_VALUE;

	/**
	 * Reads a payload; a service name without a revision, or with one that is not a
	 * number, is a notice of {@link #UNKNOWN} revision.
	 */
	static Notice parse(String payload) {
		int colon = payload.lastIndexOf(':');
		if (colon > 0) {
			try {
				return new Notice(payload.substring(0, colon), Long.parseLong(payload.substring(colon + 1)));
			}
			catch (NumberFormatException ex) {
				// Not one of ours: read the service in full.
			}
		}
		return new Notice(colon > 0 ? payload.substring(0, colon) : payload, UNKNOWN);
	}

}
