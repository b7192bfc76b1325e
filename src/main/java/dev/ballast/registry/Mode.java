package dev.ballast.registry;

import dev.ballast.weight.EffectiveWeight.Rotation;

/** What an operator or a release asked of an instance. */
public enum Mode {

	/** Receiving its configured weight. */
	SERVING(Rotation.IN),
	/** Ramping up from a small weight to its configured weight. */
	WARMING(Rotation.RAMPING),
	/** Ramping down to weight 0. */
	DRAINING(Rotation.RAMPING),
	/** At weight 0 after a drain, confirmed by the balancers. */
	DRAINED(Rotation.OUT),
	/** At weight 0 at once, for an operator's reason. */
	MAINTENANCE(Rotation.OUT);

	private final Rotation rotation;

	Mode(Rotation rotation) {
		this.rotation = rotation;
	}

	/** How much of its weight an instance in this mode receives. */
	Rotation rotation() {
		return rotation;
	}

}
