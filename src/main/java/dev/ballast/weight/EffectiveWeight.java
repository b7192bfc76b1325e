package dev.ballast.weight;

/**
 * The one rule for the weight balancers must use: an instance in rotation gets its
 * configured weight, one ramping (warming up or draining) the weight its ramp last set,
 * and one out of rotation (maintenance, drained, ejected) gets 0.
 */
public final class EffectiveWeight {

	private EffectiveWeight() {
	}

	/** How much of its weight an instance's state lets it receive. */
	public enum Rotation {

		/** Its configured weight. */
		IN,

		/** What its ramp set. */
		RAMPING,

		/** Nothing. */
		OUT

	}

	/**
	 * @param configured the configured weight
	 * @param rotation what the instance's state allows
	 * @param ramp the weight a ramp set (used only while ramping)
	 * @return the effective weight
	 */
	public static Weight of(Weight configured, Rotation rotation, Weight ramp) {
		return switch (rotation) {
			case IN -> configured;
			case RAMPING -> ramp;
			case OUT -> Weight.ZERO;
		};
	}

}
