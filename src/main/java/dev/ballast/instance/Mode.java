package dev.ballast.instance;

/** What an operator or a release asked of an instance. */
public enum Mode {

	/** Receiving its configured weight. */
	SERVING,
	/** Ramping up from a small weight to its configured weight. */
	WARMING,
	/** Ramping down to weight 0. */
	DRAINING,
	/** At weight 0 after a drain, confirmed by the balancers. */
	DRAINED,
	/** At weight 0 at once, for an operator's reason. */
	MAINTENANCE

}
