package dev.ballast.registry;

import java.time.Instant;
import java.util.List;

/**
 * Why an instance is in its mode, until when, and which subscribers a drain waits for.
 *
 * @param reason the operator's reason for maintenance, or null
 * @param until when the registry ends the mode by itself: the end of maintenance, the end
 * of a warm-up's ramp, or the time a drain completes at the latest (its confirmation
 * timeout); null when it does not
 * @param unconfirmedSubscribers while DRAINING, the subscribers that have not yet
 * acknowledged weight 0, which the drain waits for until {@code until}; once DRAINED,
 * those that had not when the confirmation timed out; empty otherwise
 */
public record ModeDetail(String reason, Instant until, List<String> unconfirmedSubscribers) {

	public ModeDetail {
		unconfirmedSubscribers = unconfirmedSubscribers == null ? List.of() : List.copyOf(unconfirmedSubscribers);
		if (reason != null && reason.length() > 512) {
			throw new IllegalArgumentException("reason must be at most 512 characters");
		}
	}

	public static ModeDetail maintenance(String reason, Instant until) {
		return new ModeDetail(reason, until, List.of());
	}

	/**
	 * A drain waiting for {@code subscribers} to acknowledge weight 0, at most until
	 * {@code deadline}; null when it waits for nobody.
	 */
	public static ModeDetail awaiting(List<String> subscribers, Instant deadline) {
		return subscribers.isEmpty() ? null : new ModeDetail(null, deadline, subscribers);
	}

	/** A warm-up that reaches the configured weight at {@code until}. */
	public static ModeDetail warming(Instant until) {
		return new ModeDetail(null, until, List.of());
	}

	public static ModeDetail unconfirmed(List<String> subscribers) {
		return subscribers.isEmpty() ? null : new ModeDetail(null, null, subscribers);
	}

}
