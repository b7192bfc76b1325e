package dev.ballast.registry;

import java.util.Objects;

/**
 * Whether a change is held to the unroutable budget, and how its caller asked. Every
 * action of an operator or a registrant is guarded; the registry's own steps are not
 * (lease expiry has its ejection cap, and a drain's ramp steps were admitted when the
 * drain was).
 *
 * @param guarded whether the budget applies
 * @param force whether the caller asked to pass the budget (audited, logged, counted)
 * @param action what the change does, in words for the refusal, e.g. {@code draining}
 * @param howToForce how this entrance sends force, for the refusal
 */
public record Guard(boolean guarded, boolean force, String action, String howToForce) {

	/** The refusal's advice for a call with a body of its own. */
	public static final String FORCE_FIELD = "send \"force\": true";

	/** The refusal's advice for a call whose body cannot carry force (a merge patch). */
	public static final String FORCE_PARAMETER = "add ?force=true to the request";

	private static final Guard NONE = new Guard(false, false, "", "");

	public Guard {
		Objects.requireNonNull(action, "action");
		Objects.requireNonNull(howToForce, "howToForce");
	}

	/** An operator's or a registrant's change, forced when {@code force} is true. */
	public static Guard of(String action, Boolean force, String howToForce) {
		return new Guard(true, Boolean.TRUE.equals(force), action, howToForce);
	}

	/** A step of the registry's own. */
	public static Guard none() {
		return NONE;
	}

}
