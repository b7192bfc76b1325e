package dev.ballast.weight;

/**
 * The weight an instance counts with in the guard's budget: the capacity it stands for.
 * It is the configured weight, except while an operator or a registrant holds the
 * instance at weight 0: then it keeps counting with its last positive weight, so that a
 * weight edit to 0 takes that weight away from the service as visibly as a drain does. A
 * weight that a traffic shift sets moves capacity between instances instead of taking it
 * away, so it carries no memory: an instance a release took to 0 counts with 0.
 */
public final class NominalWeight {

	private NominalWeight() {
	}

	/**
	 * @param before the nominal weight before the change ({@link Weight#ZERO} for a new
	 * instance)
	 * @param configured the configured weight after the change
	 * @param byHand whether an operator or a registrant set {@code configured} (not a
	 * traffic shift)
	 * @return the nominal weight after the change
	 */
	public static Weight after(Weight before, Weight configured, boolean byHand) {
		if (configured.value() > 0 || !byHand) {
			return configured;
		}
		return before;
	}

	/**
	 * Whether an instance at {@code configured} with {@code nominal} is held at 0 by
	 * hand, taking its nominal weight out of rotation.
	 */
	public static boolean heldAtZero(Weight configured, Weight nominal) {
		return configured.value() == 0 && nominal.value() > 0;
	}

}
