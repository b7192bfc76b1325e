package dev.ballast.weight;

/**
 * The one rule for the weight balancers must use: an instance in rotation gets its
 * configured weight, one ramping (warming up or draining) the weight its ramp last set
 * but never more than its configured weight, and one out of rotation (maintenance,
 * drained, ejected) gets 0. So {@code 0 <= effective <= configured} holds whatever edit
 * lands during a ramp: an edit that lowers the weight below what the ramp reached takes
 * the effective weight down to it at once, and the ramp goes on from there
 * ({@link Ramp#rebased}).
 */
public final class EffectiveWeight {

	private EffectiveWeight() {
	}

	/** How much of its weight an instance's state lets it receive. */
	public enum Rotation {

		/** Its configured weight. */
		IN,

		/** What its ramp set, at most its configured weight. */
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
			case RAMPING -> ramp.value() < configured.value() ? ramp : configured;
			case OUT -> Weight.ZERO;
		};
	}

}
